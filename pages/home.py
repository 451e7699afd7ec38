"""Home: what the app is, the pages, and a guided path for a lecture with experiments one click away."""
import streamlit as st

from ui.app import PAGES, ROOT
from ui.i18n import t
from ui.texts import lecture


def _open(page: str, settings: dict) -> None:
    """Set the experiment's controls (Controls.seed keeps values already in the session) and go there."""
    for key, value in settings.items():
        st.session_state[key] = value
    st.switch_page(ROOT / "pages" / f"{page}.py")


def render() -> None:
    st.title(t("app.title"))
    st.markdown(t("home"))
    st.header(t("home.header"))
    st.markdown(t("home.lecture"))
    icons = dict(PAGES)
    for n, step in enumerate(lecture(), 1):
        with st.container(border=True):
            head, link = st.columns([3, 1], vertical_alignment="center")
            head.subheader(f"{n} · {step['title']}")
            link.page_link(ROOT / "pages" / f"{step['page']}.py", label=t("home.open"), icon=icons[step["page"]])
            st.markdown(f"{step['teaches']}\n\n:material/visibility: {step['look']}")
            cols = st.columns(len(step["tries"]))
            for col, (i, (label, what, settings)) in zip(cols, enumerate(step["tries"])):
                col.markdown(t("home.try", label=label, what=what))
                if col.button(t("home.try_button"), key=f"try_{step['page']}_{i}", icon=":material/play_arrow:"):
                    _open(step["page"], settings)
    st.header(t("home.summary.header"))
    st.markdown(t("home.summary"))
    st.caption(t("home.footer"))


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
