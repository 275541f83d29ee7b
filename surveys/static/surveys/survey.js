/*
 * Survey taking without page reloads. Without JavaScript the same forms post
 * normally; this script only improves on them:
 *  - saves a page by Ajax and swaps in the next page's fragment;
 *  - shows field errors from the server next to their fields;
 *  - retries a save that failed on the network with the same save_id (the
 *    server saves a save_id once), telling the person it is retrying.
 */
(function () {
  "use strict";

  var container = document.getElementById("survey-page");
  var status = document.getElementById("save-status");
  if (!container || !status || !window.fetch || !window.FormData) {
    return;
  }
  var AJAX = { "X-Requested-With": "XMLHttpRequest", "Accept": "application/json" };
  var MAX_DELAY_MS = 15000;
  var busy = false;

  function say(text, problem) {
    status.textContent = text;
    status.classList.toggle("problem", !!problem);
  }

  function setBusy(form, value) {
    busy = value;
    form.querySelectorAll("button").forEach(function (button) { button.disabled = value; });
  }

  function retryDelay(attempt) {
    return Math.min(1000 * Math.pow(2, attempt - 1), MAX_DELAY_MS);
  }

  function clearErrors(form) {
    form.querySelectorAll("[data-error-for]").forEach(function (el) { el.textContent = ""; });
    form.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
    form.querySelectorAll(".has-error").forEach(function (el) { el.classList.remove("has-error"); });
    var old = container.querySelector(".error-summary");
    if (old) { old.remove(); }
  }

  function summary(title, items) {
    var box = document.createElement("div");
    box.className = "error-summary";
    box.setAttribute("role", "alert");
    box.tabIndex = -1;
    var heading = document.createElement("h2");
    heading.textContent = title;
    var list = document.createElement("ul");
    items.forEach(function (item) {
      var li = document.createElement("li");
      if (item.href) {
        var a = document.createElement("a");
        a.href = item.href;
        a.textContent = item.text;
        li.appendChild(a);
        if (item.after) { li.appendChild(document.createTextNode(item.after)); }
      } else {
        li.textContent = item.text;
      }
      list.appendChild(li);
    });
    box.appendChild(heading);
    box.appendChild(list);
    var form = container.querySelector("form.survey-form");
    form.parentNode.insertBefore(box, form);
    box.focus();
  }

  function showFieldErrors(form, errors) {
    var items = [];
    Object.keys(errors).forEach(function (name) {
      var messages = errors[name];
      var slot = form.querySelector('[data-error-for="' + name + '"]');
      if (slot) {
        slot.textContent = messages.join(" ");
        var field = document.getElementById("field-" + name);
        if (field) { field.classList.add("has-error"); }
        form.querySelectorAll('[name="' + name + '"]').forEach(function (input) {
          input.setAttribute("aria-invalid", "true");
        });
      }
      var prompt = slot && document.getElementById("field-" + name);
      prompt = prompt && prompt.querySelector("legend, label.prompt, th[scope=row]");
      messages.forEach(function (message) {
        if (prompt) {
          items.push({ text: prompt.firstChild.textContent.trim(), href: "#field-" + name, after: ": " + message });
        } else {
          items.push({ text: message });
        }
      });
    });
    summary("Nothing on this page was saved. Please fix:", items);
  }

  function showMissing(missing) {
    summary("Your answers are saved, but some required questions are not answered yet:",
      missing.map(function (page) {
        return {
          text: "Page " + page.page, href: page.url,
          after: ": " + page.fields.map(function (f) { return f.prompt; }).join("; ")
        };
      }));
  }

  function loadPage(url, push, attempt) {
    attempt = attempt || 0;
    return fetch(url, { headers: AJAX, credentials: "same-origin" }).then(function (response) {
      if (response.redirected || response.status === 401) {
        window.location.assign(response.url || url);
        return;
      }
      if (!response.ok) { throw new Error("HTTP " + response.status); }
      return response.text().then(function (html) {
        container.innerHTML = html;
        busy = false;
        if (push) { history.pushState({ url: url }, "", url); }
        var page = container.querySelector(".survey-page");
        document.title = "Page " + page.dataset.page + " of " + page.dataset.pageCount;
        window.scrollTo(0, 0);
        container.querySelector(".page-title").focus();
        say("");
      });
    }).catch(function () {
      attempt += 1;
      say("Your answers are saved. We could not load the next page: trying again (attempt " + attempt + ")…", true);
      return new Promise(function (resolve) {
        setTimeout(function () { resolve(loadPage(url, push, attempt)); }, retryDelay(attempt));
      });
    });
  }

  function handleSaved(form, body) {
    if (body.complete_url) {
      say("Saved. Finishing…");
      window.location.assign(body.complete_url);
      return;
    }
    if (body.missing && body.missing.length) {
      setBusy(form, false);
      say("Saved.");
      showMissing(body.missing);
      return;
    }
    say("Saved. Loading page " + body.next_page + "…");
    loadPage(body.next_url, true);
  }

  function handleRefused(form, response, body) {
    setBusy(form, false);
    if (response.status === 400 && body.errors) {
      say("Not saved: please fix the answers marked below.", true);
      showFieldErrors(form, body.errors);
      return;
    }
    var message = (body.errors && body.errors.__all__ && body.errors.__all__[0]) || "This page could not be saved.";
    say(message, true);
    if (body.complete_url) {
      window.location.assign(body.complete_url);
    } else if (body.login_url) {
      summary(message, [{ text: "Log in again", href: body.login_url }]);
    }
  }

  function save(form, data, attempt) {
    setBusy(form, true);
    if (!attempt) { say("Saving…"); }
    var headers = Object.assign({ "X-CSRFToken": data.get("csrfmiddlewaretoken") }, AJAX);
    fetch(form.action, { method: "POST", body: data, headers: headers, credentials: "same-origin" })
      .then(function (response) {
        var json = (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
        if (response.status >= 500 || !json) {
          // A proxy error page or a server failure: the save may not have happened.
          throw new Error("HTTP " + response.status);
        }
        return response.json().then(function (body) {
          if (response.ok && body.saved) {
            handleSaved(form, body);
          } else {
            handleRefused(form, response, body);
          }
        });
      })
      .catch(function () {
        attempt = (attempt || 0) + 1;
        var seconds = Math.round(retryDelay(attempt) / 1000);
        say("Connection problem: your answers are not saved yet. Retrying in " + seconds +
            " s (attempt " + attempt + ")… Please keep this page open.", true);
        setTimeout(function () { save(form, data, attempt); }, retryDelay(attempt));
      });
  }

  container.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList.contains("survey-form")) { return; }
    event.preventDefault();
    if (busy) { return; }
    var data = new FormData(form);
    var submitter = event.submitter;
    data.set("nav", submitter && submitter.name === "nav" ? submitter.value : (form.querySelector('[name="nav"][value="finish"]') ? "finish" : "next"));
    clearErrors(form);
    save(form, data, 0);
  });

  // Links to other pages (from the missing-answers summary) load in place.
  container.addEventListener("click", function (event) {
    var link = event.target.closest("a[href^='/take/page/']");
    if (!link || busy) { return; }
    event.preventDefault();
    loadPage(link.getAttribute("href"), true);
  });

  window.addEventListener("popstate", function (event) {
    if (event.state && event.state.url) { loadPage(event.state.url, false); }
  });
  history.replaceState({ url: container.querySelector("form.survey-form").action }, "", window.location.href);
}());
