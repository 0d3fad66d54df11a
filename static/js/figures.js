// Figure downloads: each figure's SVG as it is on the page, or drawn to a PNG at twice its
// size. Done in the browser because the server keeps only the SVG of each figure.
(function () {
  "use strict";

  function svgText(svg) {
    const copy = svg.cloneNode(true);
    copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
    copy.setAttribute("xmlns:xlink", "http://www.w3.org/1999/xlink");
    return new XMLSerializer().serializeToString(copy);
  }

  function save(blob, filename) {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = filename;
    document.body.appendChild(link);
    link.click();
    link.remove();
    window.setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
  }

  function savePng(svg, filename) {
    const box = svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width
      ? svg.viewBox.baseVal : svg.getBoundingClientRect();
    const scale = 2;
    const image = new Image();
    image.onload = function () {
      const canvas = document.createElement("canvas");
      canvas.width = Math.ceil(box.width * scale);
      canvas.height = Math.ceil(box.height * scale);
      const context = canvas.getContext("2d");
      context.fillStyle = "#ffffff";
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(image, 0, 0, canvas.width, canvas.height);
      canvas.toBlob(function (blob) { save(blob, filename); }, "image/png");
    };
    // A data: URL, which the page's Content-Security-Policy allows for images.
    image.src = "data:image/svg+xml;base64," + btoa(unescape(encodeURIComponent(svgText(svg))));
  }

  document.querySelectorAll(".figure-downloads").forEach(function (holder) {
    const svg = holder.closest("figure").querySelector("svg");
    if (!svg) { holder.hidden = true; return; }
    holder.querySelectorAll("button[data-download]").forEach(function (button) {
      button.addEventListener("click", function () {
        const name = holder.dataset.name;
        if (button.dataset.download === "svg") {
          save(new Blob([svgText(svg)], { type: "image/svg+xml" }), name + ".svg");
        } else {
          savePng(svg, name + ".png");
        }
      });
    });
  });
})();
