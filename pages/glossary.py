"""Glossary: every metric and term the app shows, defined the way the app computes it."""
import streamlit as st

from ui.i18n import t
from ui.texts import glossary


def render() -> None:
    st.title(t("page.glossary.title"))
    st.caption(t("page.glossary.caption"))
    sections = glossary()
    asked = st.query_params.get("term")  # a metric's help link: its entry first (a #fragment does not scroll: the
    for _, entries in sections:          # page is drawn after the browser looked for it); an unknown term: the list
        for anchor, term, text in entries:
            if anchor == asked:
                st.info(f"**{term}**\n\n{text}")
    for section, entries in sections:
        st.header(section, anchor=False)
        for anchor, term, text in entries:
            st.subheader(term, anchor=anchor)
            st.markdown(text)


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
