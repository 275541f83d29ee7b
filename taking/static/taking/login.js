/* A code slip's QR code opens the login page as /#code=ABCDE-FGHJK: the fragment never reaches the server or its
   logs. Fill the field from it, take it out of the address bar and history, and leave the submitting to the person. */
(function () {
  "use strict";
  var match = /^#code=([A-Za-z0-9 -]{1,40})$/.exec(decodeURIComponent(window.location.hash || ""));
  if (!match) { return; }
  var field = document.querySelector(".login-form input[name=access_code]");
  if (field && !field.value) { field.value = match[1].toUpperCase(); }
  if (window.history && window.history.replaceState) {
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  if (field) { field.focus(); }
}());
