import streamlit as st

st.title("Decoding Lab")
st.markdown(
    """
A language model does not write text: it gives a **probability for every possible next token**, and a
*decoding algorithm* turns those probabilities into text. Everything on these pages runs a real
transformer (by default **SmolLM2-135M-Instruct**, shipped with the app) step by step, so every
picture is what the model actually did.

| Page | What it teaches |
|---|---|
| **Sampling** | temperature, top-k, top-p and min-p reshape the next-token distribution; the Gumbel-max trick draws from it without a softmax, and reusing its noise is a bug you can watch collapse. |
| **Beam search** | keeping the k best partial answers; Freitag & Al-Onaizan's pruning rules (relative, absolute, local, per-node) and what they save; sampling a prefix before beam search. |
| **Speculative decoding** | a small draft guesses N tokens, the big model checks them in one pass; top-K, greedy and lossless rejection-sampling verification. |
| **EAGLE** | a draft head that predicts the target's *features*, token trees, and the tree attention mask that verifies a whole tree in one pass. |
| **Compare** | strategies side by side on one prompt and seed, with honest metrics. |

**How to use it.** The sidebar holds what every page shares: the model, the device, the prompt
(wrapped in the chat template by default) and the seed. Every random draw uses that seed, so the
same settings give the same tokens, and the page's address carries the settings: copy the link to
share a run.
"""
)
st.caption("Scores are natural-log probabilities throughout. Definitions of every metric sit next to it.")
