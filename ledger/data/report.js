// The fact-check report's behaviour: the evidence panel, keyboard navigation, finding highlights.
(function () {
  "use strict";
  var figures = Array.prototype.slice.call(document.querySelectorAll(".fig"));
  var findings = Array.prototype.slice.call(document.querySelectorAll(".finding"));
  var empty = document.getElementById("panel-empty");

  function showChain(index) {
    document.querySelectorAll(".chain").forEach(function (c) {
      c.hidden = c.getAttribute("data-fig") !== String(index);
    });
    figures.forEach(function (f) {
      f.setAttribute("aria-expanded", f.getAttribute("data-fig") === String(index) ? "true" : "false");
    });
    if (empty) { empty.hidden = true; }
  }

  function clearHighlights() {
    document.querySelectorAll(".hl").forEach(function (el) { el.classList.remove("hl"); });
    findings.forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
  }

  function selectFinding(index) {
    clearHighlights();
    var spans = document.querySelectorAll('[data-findings~="' + index + '"]');
    spans.forEach(function (el) { el.classList.add("hl"); });
    findings.forEach(function (b) {
      if (b.getAttribute("data-finding") === String(index)) { b.setAttribute("aria-pressed", "true"); }
    });
    if (spans.length) {
      var first = spans[0];
      first.scrollIntoView({ block: "center" });
      if (first.classList.contains("fig")) { showChain(first.getAttribute("data-fig")); }
    }
    return spans.length;
  }

  function move(list, current, step) {
    var i = list.indexOf(current);
    if (i < 0) { return; }
    var next = list[Math.min(list.length - 1, Math.max(0, i + step))];
    next.focus();
  }

  function arrows(list) {
    return function (event) {
      var step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
      if (event.key === "Home") { list[0].focus(); event.preventDefault(); return; }
      if (event.key === "End") { list[list.length - 1].focus(); event.preventDefault(); return; }
      if (step) { move(list, event.currentTarget, step); event.preventDefault(); }
    };
  }

  figures.forEach(function (f) {
    var index = f.getAttribute("data-fig");
    f.addEventListener("click", function () { showChain(index); });
    f.addEventListener("focus", function () { showChain(index); });
    f.addEventListener("keydown", arrows(figures));
  });
  findings.forEach(function (b) {
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", function () { selectFinding(b.getAttribute("data-finding")); });
    b.addEventListener("keydown", arrows(findings));
  });
  document.querySelectorAll(".finding-link").forEach(function (b) {
    b.addEventListener("click", function () { selectFinding(b.getAttribute("data-finding")); });
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { clearHighlights(); }
  });
  window.ledgerReport = { showChain: showChain, selectFinding: selectFinding };
})();
