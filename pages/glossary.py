"""Glossary: every metric and term the app shows, defined the way the app computes it."""
import streamlit as st

from ui.i18n import t
from ui.texts import glossary


def render() -> None:
    st.title(t("page.glossary.title"))
    st.caption(t("page.glossary.caption"))
    for section, entries in glossary():
        st.header(section, anchor=False)
        for anchor, term, text in entries:
            st.subheader(term, anchor=anchor)
            st.markdown(text)


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
