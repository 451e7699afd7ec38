"""sha256 of the shipped weight files under assets/ (written by scripts/asset_sums.py; checked by the
loaders when an asset's manifest.json is missing as well as against it)."""

SUMS = {
    "draft/draft.safetensors": "ab7408874f44486caba9d5a58c8776a184e9185d2e30130c40641598ef24c6d5",
    "draft/vocab.safetensors": "1401776149c4358df73607519cd5e4a5a9f67e6f9c66678849249239062ce08d",
    "eagle/model.safetensors": "022281694b2e0be91730ae2e257afadb2a32814f23fd73b8a74354434af24598",
    "eagle3/model.safetensors": "9a2dbcaf5e94bbadbab0ed1576a1742aa757f904cfaff38975f30e1ff6bd09e2",
}
