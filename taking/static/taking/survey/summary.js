/*
 * The box at the top of the page that lists what stopped a save or what is still missing. Its markup is the
 * server's (taking/jinja2/taking/summary.html): the page fragment carries an empty copy of it (<template
 * class="summary-template">), which Survey.summary.show fills with text, so that a person sees the same summary
 * with the script as without it.
 */
(function (Survey) {
  "use strict";
  var page = Survey.page;

  function clear() {
    page.container.querySelectorAll(".error-summary").forEach(function (old) { old.remove(); });
  }

  // Show title and items ({text, href, after, pageLink}: a link to href with its text, then the words after it;
  // or, without href, plain text) where the server puts a summary, and move the focus to it.
  function show(title, items) {
    var template = page.container.querySelector("template.summary-template");
    if (!template) { return; }  // a fragment from a server older than this script: the status line says it
    var box = template.content.firstElementChild.cloneNode(true);
    var list = box.querySelector("ul");
    var model = list.removeChild(list.firstElementChild);
    box.querySelector("h2").textContent = title;
    items.forEach(function (item) {
      var entry = model.cloneNode(true);
      var link = entry.firstElementChild;
      if (item.href) {
        link.setAttribute("href", item.href);
        link.textContent = item.text;
        if (item.pageLink) { link.classList.add("page-link"); }
        if (item.after) { entry.appendChild(document.createTextNode(item.after)); }
      } else {
        entry.textContent = item.text;
      }
      list.appendChild(entry);
    });
    clear();
    template.parentNode.insertBefore(box, template);
    box.focus();
  }

  Survey.summary = { show: show, clear: clear };
}(window.Survey = window.Survey || {}));
