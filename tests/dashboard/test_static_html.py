"""Display-only trees sent as HTML text in one component (dashboard.static_html)."""

from __future__ import annotations

import pytest
from dash import dcc, html

from dashboard.static_html import NotStatic, static, to_html


def test_a_tree_is_written_as_the_html_the_browser_would_draw():
    tree = html.Div(
        [
            html.Span("R* /s · 2.5x", className="stat-label", title='say "why"'),
            html.Table(html.Tr(html.Td(98160, colSpan=2, style={"fontWeight": 700}))),
            html.Details("more", open=True),
        ],
        className="stats",
    )
    assert to_html(tree) == (
        '<div class="stats">'
        '<span class="stat-label" title="say &quot;why&quot;">R* /s · 2.5x</span>'
        '<table><tr><td colspan="2" style="font-weight: 700">98160</td></tr></table>'
        "<details open>more</details>"
        "</div>"
    )


def test_text_cannot_open_a_tag_or_a_jsx_expression():
    assert to_html(html.P("<b>{x}</b>\nnext")) == ("<p>&lt;b&gt;&#123;x&#125;&lt;/b&gt; next</p>")


def test_a_control_or_a_pattern_id_stays_a_dash_component():
    with pytest.raises(NotStatic):
        to_html(html.Div(dcc.Input(id="rate")))
    with pytest.raises(NotStatic):
        to_html(html.Div(id={"type": "panel-stats", "sched": "even"}))


def test_one_markdown_component_with_raw_html_allowed():
    out = static([html.P("a"), html.P("b")])
    assert isinstance(out, dcc.Markdown) and out.dangerously_allow_html
    assert out.children == "<div><p>a</p><p>b</p></div>"
