"""sha256 of the shipped weight files under assets/ (written by scripts/asset_sums.py; checked by the
loaders when an asset's manifest.json is missing as well as against it)."""

SUMS = {
    "draft/draft.safetensors": "49b05ca48c1006e1edce1dd128723ab5d76a034611ddfb9c95df560c337a4b37",
    "draft/vocab.safetensors": "1401776149c4358df73607519cd5e4a5a9f67e6f9c66678849249239062ce08d",
    "eagle/model.safetensors": "022281694b2e0be91730ae2e257afadb2a32814f23fd73b8a74354434af24598",
    "eagle3/model.safetensors": "8c9770ba9df0d7d252ea7f3a9c9de68a1fee27507925a8f393056190e485ed7c",
}
