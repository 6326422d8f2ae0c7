// A graph too large for its pane is drawn at its least (legible) zoom, not shrunk: the
// layout's fit stops at the graph's minZoom (dashboard/cyto_styles.py) and centres it.
// Here such a graph is shown from its top-left corner instead (where the spouts and the
// first nodes are), in each direction it overflows; the user pans (drag) for the rest.
// A pane that changes size (the page above it grew, Present mode fitting the screen) is
// fitted again: cytoscape itself only follows the window's size.
//
// A placement map's node boxes are laid out on the server in a grid made for a typical
// pane (dashboard/map_geometry.py); here they are put in as many columns as draw the
// whole map largest in this pane (a tall pane: fewer columns, more rows), rows as close
// as their labels allow, each box moving with its slots and executors, and the map is
// centred in the pane at that zoom. A map no column count shows whole at its least zoom
// gets as many columns as fit the pane's width, and is panned down rather than cut at the
// right.
(function () {
  var FIT_PADDING = 26;  // px, the layouts' padding (dashboard/cyto_styles.py)
  var PAD = 12;  // px between the pane's edge and the graph
  var PAD_TOP = 30;  // px above it, clear of the pane's label
  var GAP_X = 24;  // px between node boxes side by side (dashboard/map_geometry.py)
  var ROW_GAP = 12;  // px between a node box and the label of the box below it

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

  // The node boxes of a map in their server order, each with the nodes drawn inside it
  // and the height of its label above it.
  function boxes(cy) {
    var machines = cy.nodes(".machine").toArray();
    var inner = cy.nodes().not(".machine").toArray();
    return machines.map(function (m) {
      var p = m.position(), w = m.width() / 2, h = m.height() / 2;
      var members = inner.filter(function (n) {
        var q = n.position();
        return q.x >= p.x - w && q.x <= p.x + w && q.y >= p.y - h && q.y <= p.y + h;
      });
      var label = Math.max(0, p.y - h - m.boundingBox({includeLabels: true}).y1);
      return {box: m, members: members, top: p.y - h, left: p.x - w, w: 2 * w, h: 2 * h,
              label: label};
    });
  }

  function room(cy) { return [cy.width() - 2 * PAD, cy.height() - PAD_TOP - PAD]; }

  // The zoom at which a grid of ``cols`` columns of these boxes fits the pane.
  function gridZoom(cy, list, cols, pitchX, pitchY, above) {
    var rows = Math.ceil(list.length / cols), space = room(cy);
    var width = (cols - 1) * pitchX + list[0].w;
    var last = list.slice((rows - 1) * cols).reduce(function (h, b) { return Math.max(h, b.h); }, 0);
    var height = above + (rows - 1) * pitchY + last;
    return {
      cols: cols,
      zoom: Math.min(space[0] / width, space[1] / height, cy.maxZoom()),
      fitsWidth: width * cy.minZoom() <= space[0],
    };
  }

  // Put the map's node boxes in the column count that draws it largest, rows ROW_GAP
  // apart under the tallest label; true if a box moved.
  function reflow(cy) {
    var list = boxes(cy);
    if (list.length < 2 || !cy.width() || !cy.height()) { return false; }
    var top0 = list[0].top, left0 = list[0].left, cols = 1;
    while (cols < list.length && Math.abs(list[cols].top - top0) < 1) { cols += 1; }
    var pitchX = cols > 1 ? list[1].left - left0 : list[0].w + GAP_X;
    var above = list.reduce(function (h, b) { return Math.max(h, b.label); }, 0);
    var tallest = list.reduce(function (h, b) { return Math.max(h, b.h); }, 0);
    var pitchY = tallest + above + ROW_GAP;
    var best = gridZoom(cy, list, cols, pitchX, pitchY, above), widest = null;
    for (var c = 1; c <= list.length; c += 1) {
      var option = gridZoom(cy, list, c, pitchX, pitchY, above);
      if (option.zoom > best.zoom + 1e-9) { best = option; }
      if (option.fitsWidth) { widest = option; }
    }
    if (best.zoom < cy.minZoom() && widest) { best = widest; }  // never whole: pan down
    var moved = false;
    cy.batch(function () {
      list.forEach(function (b, i) {
        var dx = left0 + (i % best.cols) * pitchX - b.left;
        var dy = top0 + Math.floor(i / best.cols) * pitchY - b.top;
        if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) { return; }
        moved = true;
        [b.box].concat(b.members).forEach(function (n) {
          var q = n.position();
          n.position({x: q.x + dx, y: q.y + dy});
        });
      });
    });
    return moved;
  }

  // A map at the largest zoom that shows it whole (maxZoom at most), centred; one larger
  // than its pane at its least zoom, from its top-left corner.
  function place(cy) {
    if (cy.elements().empty() || !cy.width() || !cy.height()) { return; }
    var bb = cy.elements().boundingBox(), space = room(cy);
    var zoom = Math.max(cy.minZoom(), Math.min(cy.maxZoom(), space[0] / bb.w, space[1] / bb.h));
    var x = bb.w * zoom <= space[0] ? PAD + (space[0] - bb.w * zoom) / 2 : PAD;
    var y = bb.h * zoom <= space[1] ? PAD_TOP + (space[1] - bb.h * zoom) / 2 : PAD_TOP;
    cy.viewport({zoom: zoom, pan: {x: x - bb.x1 * zoom, y: y - bb.y1 * zoom}});
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
      reflow(cy);
      place(cy);
    } else {
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
      cy.on("layoutstop", function () { refit(cy, isMap, el); });
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
