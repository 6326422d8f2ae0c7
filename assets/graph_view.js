// A graph too large for its pane is drawn at its least (legible) zoom, not shrunk: the
// layout's fit stops at the graph's minZoom (dashboard/cyto_styles.py) and centres it.
// Here such a graph is shown from its top-left corner instead (where the spouts and the
// first nodes are), in each direction it overflows; the user pans (drag) for the rest.
// A pane that changes size (the page above it grew, Present mode fitting the screen) is
// fitted again: cytoscape itself only follows the window's size.
(function () {
  var FIT_PADDING = 26;  // px, the layouts' padding (dashboard/cyto_styles.py)
  var PAD = 12;  // px between the pane's edge and the graph
  var PAD_TOP = 30;  // px above it, clear of the pane's label
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
  function watch() {
    document.querySelectorAll(".cyto").forEach(function (el) {
      var cy = el._cyreg && el._cyreg.cy;
      if (!cy || cy.scratch("_slotscopeAligned")) { return; }
      cy.scratch("_slotscopeAligned", true);
      cy.on("layoutstop", function () { align(cy); });
      align(cy);
      if (window.ResizeObserver) {
        var size = [el.clientWidth, el.clientHeight];
        new ResizeObserver(function () {
          var now = [el.clientWidth, el.clientHeight];
          if (now[0] === size[0] && now[1] === size[1]) { return; }
          size = now;
          if (!now[0] || !now[1]) { return; }
          cy.resize();
          cy.fit(undefined, FIT_PADDING);
          align(cy);
        }).observe(el);
      }
    });
  }
  setInterval(watch, 300);
})();
