/* Share links page: the copy button of a new link (the URL is shown only once). */
(function () {
  "use strict";
  var button = document.getElementById("copy-share-url");
  var field = document.getElementById("new-share-url");
  if (!button || !field) { return; }
  var done = document.getElementById("copy-share-status");
  button.addEventListener("click", function () {
    var text = field.textContent.trim();
    // The Clipboard API may never settle (no permission, page not focused): give it a second.
    var copied = navigator.clipboard && window.isSecureContext
      ? Promise.race([
          navigator.clipboard.writeText(text),
          new Promise(function (resolve, reject) { setTimeout(reject, 1000); }),
        ])
      : Promise.reject();
    copied.catch(function () {
      // Plain http (no Clipboard API): select the text and use the legacy command.
      var range = document.createRange();
      range.selectNodeContents(field);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      if (!document.execCommand("copy")) { throw new Error("copy refused"); }
    }).then(function () {
      done.textContent = "Copied.";
    }, function () {
      done.textContent = "Select the link and copy it (Ctrl+C).";
    });
  });
})();
