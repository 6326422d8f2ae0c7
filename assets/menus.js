// Export menus are <details> elements: close one after a choice, or on a click elsewhere.
// A panel's menu is display-only HTML (dashboard/panels.py): a click on one of its items sets
// the page's export store (dashboard/export.py EXPORT_CHOICE), whose callback draws the image.
document.addEventListener("click", function (event) {
  var item = event.target.closest && event.target.closest(".menu-item[data-fmt]");
  if (item && window.dash_clientside && window.dash_clientside.set_props) {
    window.dash_clientside.set_props("export-choice", {data: {
      sched: item.getAttribute("data-sched"),
      graph: item.getAttribute("data-graph"),
      fmt: item.getAttribute("data-fmt"),
      at: Date.now(),  // the same item twice is a new value
    }});
  }
  document.querySelectorAll("details.export-menu[open]").forEach(function (menu) {
    var inside = menu.contains(event.target);
    if (!inside || event.target.closest(".menu-item")) {
      menu.removeAttribute("open");
    }
  });
});
