/* "Share this view": the link freezes the filters the page keeps in its address. */
(function () {
  "use strict";
  document.querySelectorAll("form[data-share-this]").forEach(function (form) {
    form.addEventListener("submit", function () {
      form.elements.query.value = location.search;
    });
  });
})();
