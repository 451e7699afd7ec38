"""sha256 of the shipped weight files under assets/ (written by scripts/asset_sums.py; checked by the
loaders when an asset's manifest.json is missing as well as against it)."""

SUMS = {
    "draft/draft.safetensors": "ede43870410da2d50a44cb3372261e3b71f97662ad8ea11fec8faa7a1bb11a42",
    "draft/vocab.safetensors": "1401776149c4358df73607519cd5e4a5a9f67e6f9c66678849249239062ce08d",
    "eagle/model.safetensors": "022281694b2e0be91730ae2e257afadb2a32814f23fd73b8a74354434af24598",
    "eagle3/model.safetensors": "b567042468488fdb35b81f5c82af9f2501c5b50c62fcb192477c5b234c80dbef",
}
