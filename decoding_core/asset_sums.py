"""sha256 of the shipped weight files under assets/ (written by scripts/asset_sums.py; checked by the
loaders when an asset's manifest.json is missing as well as against it)."""

SUMS = {
    "draft/draft.safetensors": "56693bedbe4f5ea4924e5068dd9eea6f43bff832c251dc56195be6b2455dd1d0",
    "draft/vocab.safetensors": "abce40354015d346fea482fb6278f633afd22bcc5ba84d7cbd035145730f9541",
    "eagle/model.safetensors": "022281694b2e0be91730ae2e257afadb2a32814f23fd73b8a74354434af24598",
    "eagle3/model.safetensors": "cc1c520d4f855e5c88f6c4d6b900b1c21a283c7183a44d9beae6155b178fff54",
}
