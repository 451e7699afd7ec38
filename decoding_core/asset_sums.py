"""sha256 of the shipped weight files under assets/ (written by scripts/asset_sums.py; checked by the
loaders when an asset's manifest.json is missing as well as against it)."""

SUMS = {
    "draft/draft.safetensors": "ca46de3d72c6b802f2e8906219e99c400c577c80e6f1b8820c4857fc366b9275",
    "draft/vocab.safetensors": "abce40354015d346fea482fb6278f633afd22bcc5ba84d7cbd035145730f9541",
    "eagle/model.safetensors": "022281694b2e0be91730ae2e257afadb2a32814f23fd73b8a74354434af24598",
    "eagle3/model.safetensors": "c237d74be3366cbc4f22624757a5ab3093418ef30999e0dba99352ae60569eec",
}
