"""Display-only parts of the page as one Dash component each, not one per element.

dash-renderer connects every component of the layout to its store: each store
update runs a selector per component, and every component rendered anew by a
callback dispatches an update of its own. A panel's header (about 14 elements), the
ranking strip (about 80) and the like, rebuilt on every preset switch and edit, made
a switch cost about 260 such dispatches, each over the whole page (measured with
``python -m bench dashboard``; the cost is quadratic in the page's size). Trees
that no callback reads or writes into are therefore sent as HTML text inside one
``dcc.Markdown`` (raw HTML allowed): the browser draws the same elements, classes
and tooltips, and Dash sees one component.

:func:`to_html` writes a tree of ``dash.html`` components as HTML; :func:`static`
wraps it. Only ``dash.html`` components, strings and numbers are allowed: a
component a callback uses (an id, a ``dcc`` control) must stay a Dash component.
"""

from __future__ import annotations

import html as html_text
import re
from collections.abc import Mapping
from typing import Any

from dash import dcc
from dash.development.base_component import Component

HTML_NAMESPACE = "dash_html_components"
# Dash prop names that HTML spells otherwise
ATTRIBUTE_NAMES = {
    "className": "class",
    "htmlFor": "for",
    "colSpan": "colspan",
    "rowSpan": "rowspan",
}
BOOLEAN_ATTRIBUTES = {"hidden", "open", "disabled"}
# Dash bookkeeping, not HTML
SKIPPED_PROPS = {"children", "n_clicks", "n_clicks_timestamp", "disable_n_clicks", "loading_state"}
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


class NotStatic(ValueError):
    """A tree holds something that must stay a Dash component (a control, an id)."""


def _text(value: Any) -> str:
    """Text content, escaped for HTML and for the JSX parser that draws it (braces)."""
    escaped = html_text.escape(str(value), quote=False)
    return escaped.replace("{", "&#123;").replace("}", "&#125;").replace("\n", " ")


def _style(style: Mapping[str, Any]) -> str:
    """A Dash style dict as CSS text.

    >>> _style({"margin": "6px 0 0", "fontWeight": 600})
    'margin: 6px 0 0; font-weight: 600'
    """
    return "; ".join(f"{_CAMEL.sub('-', k).lower()}: {v}" for k, v in style.items())


def _attributes(props: Mapping[str, Any]) -> str:
    parts = []
    for name, value in props.items():
        if name in SKIPPED_PROPS or value is None:
            continue
        if name == "id" and not isinstance(value, str):
            raise NotStatic(f"a pattern id ({value}) must stay a Dash component")
        if name == "style":
            value = _style(value)
        attr = ATTRIBUTE_NAMES.get(name, name)
        if name in BOOLEAN_ATTRIBUTES:
            parts.append(f" {attr}" if value else "")
            continue
        parts.append(f' {attr}="{html_text.escape(str(value), quote=True)}"')
    return "".join(parts)


def to_html(node: Any) -> str:
    """A tree of ``dash.html`` components (strings, numbers, lists) as HTML text.

    >>> from dash import html
    >>> to_html(html.Td("a < b {x}", className="best", colSpan=2, style={"textAlign": "left"}))
    '<td class="best" colspan="2" style="text-align: left">a &lt; b &#123;x&#125;</td>'
    """
    if node is None or isinstance(node, bool):
        return ""
    if isinstance(node, str | int | float):
        return _text(node)
    if isinstance(node, list | tuple):
        return "".join(to_html(n) for n in node)
    spec = node.to_plotly_json() if isinstance(node, Component) else {}
    if spec.get("namespace") != HTML_NAMESPACE:
        raise NotStatic(f"{type(node).__name__} is not a dash.html component")
    tag, props = spec["type"].lower(), spec["props"]
    return f"<{tag}{_attributes(props)}>{to_html(props.get('children'))}</{tag}>"


def static(children: Any, class_name: str = "static-html") -> dcc.Markdown:
    """``children`` (``dash.html`` components) drawn by the browser as one component."""
    return dcc.Markdown(
        f"<div>{to_html(children)}</div>",
        dangerously_allow_html=True,
        className=class_name,
    )
