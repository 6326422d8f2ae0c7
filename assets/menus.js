// Export menus are <details> elements: close one after a choice, or on a click elsewhere.
document.addEventListener("click", function (event) {
  document.querySelectorAll("details.export-menu[open]").forEach(function (menu) {
    var inside = menu.contains(event.target);
    if (!inside || event.target.closest(".menu-item")) {
      menu.removeAttribute("open");
    }
  });
});
