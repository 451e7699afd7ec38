"""sha256 of the shipped weight files under assets/ (written by scripts/asset_sums.py; checked by the
loaders when an asset's manifest.json is missing as well as against it)."""

SUMS = {
    "draft/draft.safetensors": "b8b0c754f040769c88fc5be72f2e13ee1401731d1adfe8e73c5fa6e179e922a9",
    "draft/vocab.safetensors": "abce40354015d346fea482fb6278f633afd22bcc5ba84d7cbd035145730f9541",
    "eagle/model.safetensors": "c928ff037ae08cde1205903801b7f282d17f90138db9439939595dabfc641fbf",
    "eagle3/model.safetensors": "e65135cb91bcafb864e050f9b5eda8d0ec3eaf95aaa8e5d599f0cd17aaeb2b37",
}
