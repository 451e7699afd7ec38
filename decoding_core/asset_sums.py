"""sha256 of the shipped weight files under assets/ (written by scripts/asset_sums.py; checked by the
loaders when an asset's manifest.json is missing as well as against it)."""

SUMS = {
    "draft/draft.safetensors": "ff42388d10126c736d845fa4f196a8b16d4453c80f60169e489afa5b55b62c32",
    "draft/vocab.safetensors": "abce40354015d346fea482fb6278f633afd22bcc5ba84d7cbd035145730f9541",
    "eagle/model.safetensors": "022281694b2e0be91730ae2e257afadb2a32814f23fd73b8a74354434af24598",
    "eagle3/model.safetensors": "e03382ebc48ddb711d701886620723b5ce5cbc019c022706b16d26a16d6bd179",
}
