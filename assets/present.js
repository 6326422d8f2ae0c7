// Presentation mode (?present=A,B): arrow keys step through the presets, Escape leaves.
document.addEventListener("keydown", function (event) {
  var page = document.querySelector(".page.present");
  if (!page || event.altKey || event.ctrlKey || event.metaKey) { return; }
  var target = event.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) { return; }
  var params = new URLSearchParams(window.location.search);
  if (event.key === "Escape") {
    params.delete("present");
    window.location.search = params.toString();
    return;
  }
  var step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
  if (!step) { return; }
  var holder = document.getElementById("present-presets");
  var presets = holder ? holder.getAttribute("data-presets").split(",") : [];
  if (!presets.length) { return; }
  var here = presets.indexOf(params.get("preset") || presets[0]);
  var next = presets[(here + step + presets.length) % presets.length];
  params.set("preset", next);
  event.preventDefault();
  window.location.search = params.toString();
});
