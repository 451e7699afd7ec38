"""sha256 of the shipped weight files under assets/ (written by scripts/asset_sums.py; checked by the
loaders when an asset's manifest.json is missing as well as against it)."""

SUMS = {
    "draft/draft.safetensors": "63436fbb9541135b0ac8882b6b6c067fa1089f2df2e05e5ebfe50f6a58846527",
    "draft/vocab.safetensors": "1401776149c4358df73607519cd5e4a5a9f67e6f9c66678849249239062ce08d",
    "eagle/model.safetensors": "022281694b2e0be91730ae2e257afadb2a32814f23fd73b8a74354434af24598",
    "eagle3/model.safetensors": "f27da27bf1b675f7e7ea87139f27c123e065c6fab19bcf0ae1aa4c64c0050342",
}
