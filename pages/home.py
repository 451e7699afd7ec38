"""Home: what the app is, the pages, and how to use it."""
import streamlit as st

from ui.texts import TEXT


def render() -> None:
    st.title("Decoding Lab")
    st.markdown(TEXT["home"])
    st.caption("Scores are natural-log probabilities throughout. Definitions of every metric sit next to it.")


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
