"""sha256 of the shipped weight files under assets/ (written by scripts/asset_sums.py; checked by the
loaders when an asset's manifest.json is missing as well as against it)."""

SUMS = {
    "draft/draft.safetensors": "fdf10d011cf6d2dd6850ab95296de9a6fc703b9aeecf846ff0da75882ffb3b56",
    "draft/vocab.safetensors": "abce40354015d346fea482fb6278f633afd22bcc5ba84d7cbd035145730f9541",
    "eagle/model.safetensors": "022281694b2e0be91730ae2e257afadb2a32814f23fd73b8a74354434af24598",
    "eagle3/model.safetensors": "6d549d3614fd980da66040b4dd9ad48fb3edc26bb1582b64071007b9dda173f7",
}
