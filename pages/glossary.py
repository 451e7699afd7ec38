"""Glossary: every metric and term the app shows, defined the way the app computes it."""
import streamlit as st

from ui.texts import GLOSSARY


def render() -> None:
    st.title("Glossary")
    st.caption("Every metric and term on these pages, defined the way the app computes it. Metrics elsewhere link "
               "here (the ⓘ next to them).")
    for section, entries in GLOSSARY:
        st.header(section, anchor=False)
        for anchor, term, text in entries:
            st.subheader(term, anchor=anchor)
            st.markdown(text)


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
