"""Text laid out in columns: a CJK character counts two; lines break at spaces or between CJK characters and never
start with a closing mark. Pure; used by the presentation mode's chart titles (ui/lab.py) and the downloaded trees' key
(viz/export.py)."""
from __future__ import annotations


def _columns(ch: str) -> int:
    """How wide a character is drawn: a CJK character (or a full-width form) two columns, anything else one."""
    return 2 if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" else 1


CLOSING = set("）」』】〕》〉，。、：；！？)]},.;:!?")  # never starts a wrapped line
OPENING = set("（「『【〔《〈")  # never ends one


def wrap_text(text: str, cols: int) -> list[str]:
    """``text`` in lines of at most ``cols`` columns (a CJK character counts two), broken at spaces or between CJK
    characters; a word longer than a line stays whole; a break the text has ("<br>", plotly's) stays."""
    if "<br>" in text:
        return [line for part in text.split("<br>") for line in wrap_text(part, cols)]
    lines, line, width, cut = [], "", 0, -1  # cut: where the current line may break (index into line)
    for ch in text:
        w = _columns(ch)
        if width + w > cols and cut > 0 and not (ch in CLOSING and cut == len(line)):  # not "τ（平均接受长度" /
            # "）": a closing mark that would start the next line alone stays on this one, its width over
            head, line = line[:cut].rstrip(), line[cut:].lstrip()
            lines.append(head)
            width = sum(map(_columns, line))
            cut = -1
        line += ch
        width += w
        if ch in OPENING:  # a line may end before an opening mark, never just after it
            cut = len(line) - 1
        elif ch == " " or w == 2:
            cut = len(line)
    if line.strip():
        lines.append(line.strip())
    return lines
