"""Home: what the app is, the pages, and a guided path for a lecture with experiments one click away."""
import streamlit as st

from ui.app import PAGES, ROOT
from ui.texts import LECTURE, TEXT


def _open(page: str, settings: dict) -> None:
    """Set the experiment's controls (Controls.seed keeps values already in the session) and go there."""
    for key, value in settings.items():
        st.session_state[key] = value
    st.switch_page(ROOT / "pages" / f"{page}.py")


def render() -> None:
    st.title("Decoding Lab")
    st.markdown(TEXT["home"])
    st.header("A lecture in six steps")
    st.markdown(TEXT["home.lecture"])
    icons = {name: icon for name, _, icon in PAGES}
    for n, step in enumerate(LECTURE, 1):
        with st.container(border=True):
            head, link = st.columns([4, 1], vertical_alignment="center")
            head.subheader(f"{n} · {step['title']}")
            link.page_link(ROOT / "pages" / f"{step['page']}.py", label="Open the page", icon=icons[step["page"]])
            st.markdown(f"{step['teaches']}\n\n:material/visibility: {step['look']}")
            cols = st.columns(len(step["tries"]))
            for col, (i, (label, what, settings)) in zip(cols, enumerate(step["tries"])):
                col.markdown(f"**Try: {label}.** {what}")
                if col.button("Try it", key=f"try_{step['page']}_{i}", icon=":material/play_arrow:"):
                    _open(step["page"], settings)
    st.caption("Scores are natural-log probabilities throughout. Definitions of every metric sit next to it.")


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
