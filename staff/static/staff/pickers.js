/* School and district pickers: a text box (input[data-picker="school" or "district"]) that lists, as one types,
   the places of the staff member's scope whose code or name holds the text (the JSON of data-picker-url), to
   choose with a click, a tap, or the arrow keys and Enter (an ARIA combobox). Choosing writes "Name (CODE)" in the
   box; in a box of several (data-picker-multiple: entries separated by commas) it writes the code in place of the
   entry being typed. A school's box narrows to the district written in the box data-picker-within names. Without
   JavaScript the box takes a code or a name as it is, and the page lists the places it matched when several did. */
(function () {
  "use strict";
  var SEPARATORS = /[,;\n]/;

  function lastSeparator(text) {
    return Math.max(text.lastIndexOf(","), text.lastIndexOf(";"), text.lastIndexOf("\n"));
  }

  function picker(input) {
    var multiple = input.hasAttribute("data-picker-multiple");
    var wrap = document.createElement("div");
    var list = document.createElement("ul");
    var note = document.createElement("p");
    var status = document.createElement("p");
    var matches = [], active = -1, asked = 0, timer = null;

    wrap.className = "picker";
    list.id = input.id + "-matches";
    list.className = "picker-matches";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", (input.labels && input.labels.length ? input.labels[0].textContent : "Places") +
                      ": matches");
    list.hidden = true;
    note.className = "picker-note help";
    note.hidden = true;
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    input.parentNode.insertBefore(wrap, input);
    wrap.appendChild(input);
    wrap.appendChild(list);
    wrap.appendChild(note);
    wrap.appendChild(status);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", list.id);

    function typed() {  // the text being typed: the box's, or in a box of several its last entry
      var text = input.value;
      return (multiple ? text.slice(lastSeparator(text) + 1) : text).trim();
    }

    function close() {
      list.hidden = true;
      note.hidden = true;
      active = -1;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }

    function highlight(index) {
      var options = list.children;
      active = index;
      for (var i = 0; i < options.length; i += 1) {
        options[i].setAttribute("aria-selected", i === index ? "true" : "false");
      }
      if (index >= 0) {
        input.setAttribute("aria-activedescendant", options[index].id);
        options[index].scrollIntoView({block: "nearest"});
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }

    function show(found, more) {
      matches = found;
      list.textContent = "";
      found.forEach(function (place, index) {
        var option = document.createElement("li"), name = document.createElement("span");
        option.id = list.id + "-" + index;
        option.setAttribute("role", "option");
        option.setAttribute("aria-selected", "false");
        option.setAttribute("data-code", place.code);
        name.className = "picker-name";
        name.textContent = place.label;
        option.appendChild(name);
        if (place.district) {
          var district = document.createElement("span");
          district.className = "picker-district";
          district.textContent = place.district;
          option.appendChild(district);
        }
        list.appendChild(option);
      });
      list.hidden = !found.length;
      note.textContent = !found.length ? "Nothing in your scope matches this." :
        more ? "More match: type more of the name or the code to narrow them." : "";
      note.hidden = !note.textContent;
      input.setAttribute("aria-expanded", found.length ? "true" : "false");
      status.textContent = found.length ? found.length + (more ? " or more" : "") + " found" : "None found";
      highlight(-1);
    }

    function choose(index) {
      var place = matches[index];
      if (!place) { return; }
      if (multiple) {
        var text = input.value, cut = lastSeparator(text);
        input.value = (cut >= 0 ? text.slice(0, cut + 1) + " " : "") + place.code + ", ";
      } else {
        input.value = place.label;
      }
      close();
      status.textContent = place.label + " chosen";
      input.focus();
    }

    function search() {
      var url = new URL(input.getAttribute("data-picker-url"), window.location.href);
      var within = input.getAttribute("data-picker-within");
      var district = within && document.getElementById(within);
      url.searchParams.set("kind", input.getAttribute("data-picker"));
      url.searchParams.set("q", typed());
      if (district && district.value.trim()) { url.searchParams.set("district", district.value.trim()); }
      var mine = asked += 1;
      fetch(url.toString(), {headers: {"Accept": "application/json"}, credentials: "same-origin"})
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          // Only the answer to the latest text, while the box still has the focus.
          if (data === null || mine !== asked || document.activeElement !== input) { return; }
          show(data.matches, data.more);
        })
        .catch(function () { close(); });
    }

    input.addEventListener("input", function () {
      window.clearTimeout(timer);
      if (multiple && SEPARATORS.test(input.value.slice(-1))) { close(); return; }
      timer = window.setTimeout(search, 150);
    });
    input.addEventListener("keydown", function (event) {
      var open = !list.hidden;
      if (event.key === "ArrowDown") {
        event.preventDefault();
        if (!open) { search(); return; }
        highlight(Math.min(active + 1, matches.length - 1));
      } else if (event.key === "ArrowUp" && open) {
        event.preventDefault();
        highlight(Math.max(active - 1, 0));
      } else if (event.key === "Enter" && open && active >= 0) {
        event.preventDefault();  // choosing, not sending the form
        choose(active);
      } else if (event.key === "Escape" && open) {
        event.preventDefault();
        close();
      }
    });
    input.addEventListener("blur", function () { window.setTimeout(close, 150); });
    // A press on the list keeps the focus in the box, so that the choice is not lost to its blur.
    list.addEventListener("mousedown", function (event) { event.preventDefault(); });
    list.addEventListener("click", function (event) {
      var option = event.target.closest("[role=option]");
      if (option) { choose(Array.prototype.indexOf.call(list.children, option)); }
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("input[data-picker][data-picker-url]"), picker);
}());
