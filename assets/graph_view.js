// A graph too large for its pane is drawn at its least (legible) zoom, not shrunk: the
// layout's fit stops at the graph's minZoom (dashboard/cyto_styles.py) and centres it.
// Here such a graph is shown from its top-left corner instead (where the spouts and the
// first nodes are), in each direction it overflows; the user pans (drag) for the rest.
// A pane that changes size (the page above it grew, Present mode fitting the screen) is
// fitted again: cytoscape itself only follows the window's size.
//
// A topology graph (DAG) that runs below its pane at its least zoom is laid out again with
// its ranks closer (down to DAG_LEAST_RANK_SEP; the streams' labels then beside their
// arrows, clear of the boxes) and its acker beside it, so a long chain (lf-star-x10's
// eight components) is whole where the pane can hold it at that zoom.
//
// A placement map's node boxes are laid out on the server in a grid made for a typical
// pane (dashboard/map_geometry.py); here they are put in as many columns as draw the
// whole map largest in this pane (a tall pane: fewer columns, more rows), rows as close
// as their labels allow, each box moving with its slots and executors, and the map is
// centred in the pane at that zoom. Labels and drawing are sized apart: at or above the
// labels' zoom (the stylesheet's minZoom, 0.9: every label 12.15 px or more on screen) the
// map is drawn as styled; to show a map whole it may be drawn smaller, down to
// the least zoom the page states (its root's data-map-least-zoom: cyto_styles.MAP_LEAST_ZOOM
// from dashboard/layout.py; none: the labels' zoom), its labels then made larger in the map by
// the labels' zoom / zoom, so they keep their size on screen (and rows keep room for them).
// A map no column count shows whole at its least zoom gets as many columns as fit the
// pane's width, and is panned down rather than cut at the right.
(function () {
  var FIT_PADDING = 26;  // px, the layouts' padding (dashboard/cyto_styles.py)
  var PAD = 12;  // px between the pane's edge and the graph
  var PAD_TOP = 30;  // px above it, clear of the pane's label
  var GAP_X = 24;  // px between node boxes side by side (dashboard/map_geometry.py)
  var ROW_GAP = 12;  // px between a node box and the label of the box below it
  var LABEL_GAP = 8;  // px on screen between two labels side by side, at least
  var DAG_RANK_SEP = 36;  // px between ranks as the server lays a DAG out (DAG_LAYOUT)
  var DAG_LABEL_SEP = 26;  // px between ranks a stream's label (13.5 px, its padding) needs
  var DAG_LEAST_RANK_SEP = 16;  // px: an arrow (the labels are then beside their streams)
  var SCALED = ["font-size", "text-margin-y", "text-max-width"];
  var LABEL_ONLY = {includeNodes: false, includeLabels: true, includeOverlays: false,
                    includeUnderlays: false, includeOutlines: false};  // a label's own box

  function align(cy) {
    var zoom = cy.zoom();
    if (zoom > cy.minZoom() + 1e-6 || cy.elements().empty()) { return; }
    var bb = cy.elements().boundingBox();
    var pan = cy.pan();
    var next = {x: pan.x, y: pan.y};
    if (bb.w * zoom + 2 * PAD > cy.width()) { next.x = PAD - bb.x1 * zoom; }
    if (bb.h * zoom + PAD + PAD_TOP > cy.height()) { next.y = PAD_TOP - bb.y1 * zoom; }
    if (next.x !== pan.x || next.y !== pan.y) { cy.pan(next); }
  }

  // -- labels of a map, sized apart from its drawing

  // The zoom at and above which the map's labels need no help (its stylesheet's minZoom).
  function labelZoom(cy) { return cy.scratch("_slotscopeLabelZoom"); }
  function labelScale(cy) { return cy.scratch("_slotscopeLabelScale") || 1; }

  // The least zoom a map may be drawn at, as the page states it (none: the labels' zoom).
  function leastZoom(cy) {
    var holder = document.querySelector("[data-map-least-zoom]");
    var least = holder ? parseFloat(holder.getAttribute("data-map-least-zoom")) : NaN;
    return isFinite(least) && least > 0 ? least : labelZoom(cy);
  }

  // Make every labelled node's label ``k`` times its stylesheet's size (1: as styled).
  function scaleLabels(cy, k) {
    if (Math.abs(k - labelScale(cy)) < 1e-3) { return; }
    var nodes = cy.nodes(".machine, .slot");
    nodes.forEach(function (n) {  // the styled values, read once with no bypass set
      if (n.scratch("_slotscopeLabel")) { return; }
      var base = {};
      SCALED.forEach(function (p) { base[p] = parseFloat(n.style(p)) || 0; });
      n.scratch("_slotscopeLabel", base);
    });
    cy.batch(function () {
      nodes.forEach(function (n) {
        var base = n.scratch("_slotscopeLabel");
        if (k === 1) { n.removeStyle(SCALED.join(" ")); return; }
        var bypass = {};
        SCALED.forEach(function (p) {
          if (base[p]) { bypass[p] = p === "text-max-width" ? base[p] * k + "px" : base[p] * k; }
        });
        n.style(bypass);
      });
    });
    cy.scratch("_slotscopeLabelScale", k);
  }

  // Labels as large on screen at ``zoom`` as at the labels' zoom, never smaller than styled.
  function followZoom(cy) {
    var least = labelZoom(cy);
    if (least) { scaleLabels(cy, Math.max(1, least / cy.zoom())); }
  }

  // -- a map's node boxes in columns

  // The node boxes of a map in their server order, each with the nodes drawn inside it,
  // the height of its label above it and that label's width (both as styled).
  function boxes(cy) {
    var machines = cy.nodes(".machine").toArray();
    var inner = cy.nodes().not(".machine").toArray();
    var k = labelScale(cy);
    return machines.map(function (m) {
      var p = m.position(), w = m.width() / 2, h = m.height() / 2;
      var members = inner.filter(function (n) {
        var q = n.position();
        return q.x >= p.x - w && q.x <= p.x + w && q.y >= p.y - h && q.y <= p.y + h;
      });
      var label = Math.max(0, p.y - h - m.boundingBox({includeLabels: true}).y1) / k;
      var text = m.boundingBox(LABEL_ONLY).w / k;
      return {box: m, members: members, top: p.y - h, left: p.x - w, w: 2 * w, h: 2 * h,
              label: label, labelW: text};
    });
  }

  // The least zoom at which the labels of a map's slots, at their screen size, still fit
  // the room their slots leave them: a label under its slot beside the next slot's and
  // above the node box's edge, a count inside its pie; 0 with none.
  function slotLabelZoom(cy, least) {
    var k = labelScale(cy), need = 0;
    var slots = cy.nodes(".slot").filter(function (s) { return !!s.style("label"); });
    var machines = cy.nodes(".machine").map(function (m) {
      return m.boundingBox({includeLabels: false});
    });
    slots.forEach(function (s) {
      var text = s.boundingBox(LABEL_ONLY), body = s.boundingBox({includeLabels: false});
      var h = text.h / k * least, w = text.w / k * least;  // on screen, px
      if (s.style("text-valign") !== "bottom") {  // a pie's count, inside it
        need = Math.max(need, h / Math.min(body.w, body.h));
        return;
      }
      var p = s.position(), gapX = Infinity;
      slots.forEach(function (t) {
        var q = t.position();
        if (t !== s && Math.abs(q.y - p.y) < 1) { gapX = Math.min(gapX, Math.abs(q.x - p.x)); }
      });
      if (gapX < Infinity) { need = Math.max(need, (w + LABEL_GAP) / gapX); }
      machines.forEach(function (b) {
        if (p.x > b.x1 && p.x < b.x2 && p.y > b.y1 && p.y < b.y2 && b.y2 > body.y2) {
          need = Math.max(need, h / (b.y2 - body.y2));
        }
      });
    });
    return need;
  }

  // A grid of ``cols`` columns of these boxes at ``zoom``, on screen: its labels at their
  // screen size (as styled at the labels' zoom and above, held there below it), columns
  // spread so that labels side by side stay LABEL_GAP apart; [width, height, pitch] in px.
  function gridSize(cy, g, cols, zoom) {
    var rows = Math.ceil(g.list.length / cols), at = Math.max(zoom, labelZoom(cy));
    var text = g.widest * at;  // a node label's width on screen
    var pitch = cols > 1 ? Math.max(g.pitchX * zoom, text + LABEL_GAP) : 0;
    var last = g.list.slice((rows - 1) * cols).reduce(function (h, b) { return Math.max(h, b.h); }, 0);
    var width = (cols - 1) * pitch + Math.max(g.list[0].w * zoom, text);
    var height = rows * g.above * at + zoom * ((rows - 1) * (g.tallest + ROW_GAP) + last);
    return [width, height, pitch];
  }

  // The largest zoom (between ``floor`` and maxZoom) at which a grid of ``cols`` columns
  // fits the pane (null: none does), and the zoom at which it fits the pane's width.
  function gridZoom(cy, g, cols, floor) {
    var space = room(cy);
    var fits = function (z, both) {
      var size = gridSize(cy, g, cols, z);
      return size[0] <= space[0] && (!both || size[1] <= space[1]);
    };
    var widest = function (both) {
      if (!fits(floor, both)) { return null; }
      var lo = floor, hi = cy.maxZoom();
      if (fits(hi, both)) { return hi; }
      for (var i = 0; i < 30; i += 1) {
        var mid = (lo + hi) / 2;
        if (fits(mid, both)) { lo = mid; } else { hi = mid; }
      }
      return lo;
    };
    return {cols: cols, zoom: widest(true), width: widest(false)};
  }

  function room(cy) { return [cy.width() - 2 * PAD, cy.height() - PAD_TOP - PAD]; }

  // Put the map's node boxes in the column count that draws it largest, rows ROW_GAP
  // apart under the tallest label; the zoom to draw it at.
  function reflow(cy) {
    var list = boxes(cy);
    if (list.length < 2 || !cy.width() || !cy.height()) { return null; }
    var top0 = list[0].top, left0 = list[0].left, cols = 1;
    while (cols < list.length && Math.abs(list[cols].top - top0) < 1) { cols += 1; }
    var g = {
      list: list,
      pitchX: cols > 1 ? list[1].left - left0 : list[0].w + GAP_X,
      above: list.reduce(function (h, b) { return Math.max(h, b.label); }, 0),
      widest: list.reduce(function (w, b) { return Math.max(w, b.labelW); }, 0),
      tallest: list.reduce(function (h, b) { return Math.max(h, b.h); }, 0),
    };
    var least = Math.max(leastZoom(cy), slotLabelZoom(cy, labelZoom(cy)));
    var floor = Math.min(labelZoom(cy), least);
    var best = null, widestFit = null;
    for (var c = 1; c <= list.length; c += 1) {
      var option = gridZoom(cy, g, c, floor);
      if (option.zoom !== null && (!best || option.zoom > best.zoom + 1e-9)) { best = option; }
      if (option.width !== null) { widestFit = option; }
    }
    if (!best) {  // never whole: as many columns as fit the width, panned down
      best = widestFit || {cols: 1, width: floor};
      best.zoom = Math.max(floor, Math.min(best.width, labelZoom(cy)));
    }
    var zoom = best.zoom, at = Math.max(zoom, labelZoom(cy));
    var pitchX = best.cols > 1 ? gridSize(cy, g, best.cols, zoom)[2] / zoom : g.pitchX;
    var pitchY = g.tallest + g.above * at / zoom + ROW_GAP;
    cy.batch(function () {
      list.forEach(function (b, i) {
        var dx = left0 + (i % best.cols) * pitchX - b.left;
        var dy = top0 + Math.floor(i / best.cols) * pitchY - b.top;
        if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) { return; }
        [b.box].concat(b.members).forEach(function (n) {
          var q = n.position();
          n.position({x: q.x + dx, y: q.y + dy});
        });
      });
    });
    return zoom;
  }

  // A map at ``zoom`` (the largest that shows it whole, its labels at their screen size),
  // centred; one larger than its pane at that zoom, from its top-left corner.
  function place(cy, zoom) {
    if (cy.elements().empty() || !cy.width() || !cy.height()) { return; }
    var least = labelZoom(cy);
    if (zoom === null) {  // a single node box: as large as fits, labels as styled
      var bb0 = cy.elements().boundingBox(), space0 = room(cy);
      zoom = Math.max(least, Math.min(cy.maxZoom(), space0[0] / bb0.w, space0[1] / bb0.h));
    }
    cy.minZoom(Math.min(least, zoom));  // the user zooms out no further than the whole map
    scaleLabels(cy, Math.max(1, least / zoom));
    var bb = cy.elements().boundingBox(), space = room(cy);
    var x = bb.w * zoom <= space[0] + 1 ? PAD + (space[0] - bb.w * zoom) / 2 : PAD;
    var y = bb.h * zoom <= space[1] + 1 ? PAD_TOP + (space[1] - bb.h * zoom) / 2 : PAD_TOP;
    cy.viewport({zoom: zoom, pan: {x: Math.max(x, PAD) - bb.x1 * zoom,
                                   y: Math.max(y, PAD_TOP) - bb.y1 * zoom}});
  }

  // -- a DAG's ranks closer when it runs below its pane

  // True if the DAG was laid out again (its layoutstop then fits it): ranks closer, the
  // acker (which every component feeds: a rank of its own under the last one) beside the
  // graph rather than below it and, when the ranks are closer than a stream's label needs
  // (DAG_LABEL_SEP), each stream's label to the right of its arrow, clear of the boxes.
  function compact(cy) {
    if (cy.elements().empty() || !cy.height()) { return false; }
    var bb = cy.elements().boundingBox();
    var space = (cy.height() - PAD_TOP - PAD) / cy.minZoom();  // model px the pane holds
    var sep = cy.scratch("_slotscopeRankSep") || DAG_RANK_SEP;
    if (bb.h <= space + 1 || sep <= DAG_LEAST_RANK_SEP) { return false; }
    var aside = cy.nodes(".acker"), laid = cy.elements().not(aside).not(aside.connectedEdges());
    var ranks = {};
    laid.nodes().forEach(function (n) { ranks[Math.round(n.position("y"))] = true; });
    var gaps = Object.keys(ranks).length - 1;
    if (gaps < 1) { return false; }
    var tall = laid.nodes().boundingBox().h;
    var next = Math.max(DAG_LEAST_RANK_SEP, Math.min(sep - 0.5, sep - (tall - space) / gaps));
    var beside = next < DAG_LABEL_SEP;
    cy.scratch("_slotscopeRankSep", next);
    var layout = laid.layout({name: "dagre", rankDir: "TB", nodeSep: 18, rankSep: next,
                              edgeSep: 10, fit: false, animate: false});
    layout.one("layoutstop", function () {  // before the graph's own layoutstop fits it
      laid.edges().forEach(function (e) {
        if (!beside || !e.style("label")) { return; }
        var text = e.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true});
        var ends = Math.max(e.source().width(), e.target().width());
        e.style("text-margin-x", ends / 2 + text.w / 2 + LABEL_GAP);
      });
      var box = laid.nodes().boundingBox();
      aside.forEach(function (a, i) {
        var x = beside ? box.x1 - 18 - a.width() / 2 : box.x2 + 18 + a.width() / 2;
        a.position({x: x, y: (box.y1 + box.y2) / 2 + i * 48});
      });
      cy.fit(undefined, FIT_PADDING);
    });
    layout.run();
    return true;
  }

  // A graph that runs past its pane says so (a "drag for more" tab, assets/style.css).
  function mark(cy, el) {
    if (cy.elements().empty()) { return; }
    var bb = cy.elements().renderedBoundingBox();
    var more = bb.x1 < -1 || bb.y1 < -1 || bb.x2 > cy.width() + 1 || bb.y2 > cy.height() + 1;
    el.classList.toggle("cyto-more", more);
  }

  function refit(cy, isMap, el) {
    if (isMap) {
      place(cy, reflow(cy));
    } else {
      if (compact(cy)) { return; }
      align(cy);
    }
    mark(cy, el);
  }

  function watch() {
    document.querySelectorAll(".cyto").forEach(function (el) {
      var cy = el._cyreg && el._cyreg.cy;
      if (!cy || cy.scratch("_slotscopeAligned")) { return; }
      var isMap = el.classList.contains("cyto-map");
      cy.scratch("_slotscopeAligned", true);
      cy.scratch("_slotscopeLabelZoom", cy.minZoom());
      cy.on("layoutstop", function (event) {
        var options = (event.layout && event.layout.options) || {};
        if (!isMap && options.rankSep === DAG_RANK_SEP) {  // the server's layout, new elements
          cy.scratch("_slotscopeRankSep", null);
          cy.edges().removeStyle("text-margin-x");
        }
        if (isMap) {  // new elements (or moved ones): their labels as styled, measured afresh
          cy.nodes(".machine, .slot").removeStyle(SCALED.join(" "));
          cy.nodes().forEach(function (n) { n.removeScratch("_slotscopeLabel"); });
          cy.scratch("_slotscopeLabelScale", 1);
        }
        refit(cy, isMap, el);
      });
      if (isMap) { cy.on("zoom", function () { followZoom(cy); }); }
      refit(cy, isMap, el);
      if (window.ResizeObserver) {
        var size = [el.clientWidth, el.clientHeight];
        new ResizeObserver(function () {
          var now = [el.clientWidth, el.clientHeight];
          if (now[0] === size[0] && now[1] === size[1]) { return; }
          size = now;
          if (!now[0] || !now[1]) { return; }
          cy.resize();
          if (!isMap) { cy.fit(undefined, FIT_PADDING); }
          refit(cy, isMap, el);
        }).observe(el);
      }
    });
  }
  setInterval(watch, 300);
})();
