/*
 * Saving a page by Ajax and swapping in the next page's fragment (Survey.saving). A save or a page load that
 * fails on the network is retried (Survey.network.retried), telling the person so, then they are told what to
 * do. Field errors from the server are shown next to their fields, and the summaries in the server's markup
 * (Survey.summary). "Save and log out" is such a save: only once the server says it saved the page and ended
 * the session (logged_out) does the page go to the login page; a save that fails stays here, logged in.
 */
(function (Survey) {
  "use strict";
  var page = Survey.page;
  var network = Survey.network;
  var busy = false;

  // The form's buttons, the header's "Save and log out" among them (a button of the form by its form attribute).
  function setBusy(form, value) {
    busy = value;
    Array.prototype.forEach.call(form.elements, function (element) {
      if (element.tagName === "BUTTON") { element.disabled = value; }
    });
  }

  // The server answered (not with a 5xx): the idle time counts again from now.
  function heard(response) {
    if (response.status < 500) { Survey.idle.heard(); }
  }

  // What to tell the person about an answer that is neither JSON nor retryable.
  function statusMessage(status) {
    if (status === 413) { return page.t("too_large"); }
    if (status === 429) { return page.t("too_many"); }
    if (status === 401 || status === 403) { return page.t("session_ended"); }
    return page.t("server_error", { status: status });
  }

  function clearErrors(form) {
    form.querySelectorAll("[data-error-for]").forEach(function (el) { el.textContent = ""; });
    form.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
    form.querySelectorAll(".has-error").forEach(function (el) { el.classList.remove("has-error"); });
    Survey.summary.clear();
  }

  // errors: {field name: [message]}, as the server refused the save; a field of the page is marked, and the
  // summary names it by its prompt as the page shows it.
  function showFieldErrors(form, errors) {
    var items = [];
    Object.keys(errors).forEach(function (name) {
      var messages = errors[name];
      var slot = form.querySelector('[data-error-for="' + name + '"]');
      var field = document.getElementById("field-" + name);
      if (slot) {
        slot.textContent = messages.join(" ");
        if (field) { field.classList.add("has-error"); }
        form.querySelectorAll('[name="' + name + '"]').forEach(function (input) {
          input.setAttribute("aria-invalid", "true");
        });
      }
      var prompt = slot && field && field.querySelector("legend, label.prompt, th[scope=row]");
      messages.forEach(function (message) {
        if (prompt) {
          items.push({ text: prompt.firstChild.textContent.trim(), href: "#field-" + name, after: ": " + message });
        } else {
          items.push({ text: message });
        }
      });
    });
    Survey.summary.show(page.t("fix_title"), items);
  }

  function showMissing(missing) {
    Survey.summary.show(page.t("missing_title"), missing.map(function (missed) {
      return {
        text: page.t("page", { number: missed.page }), href: missed.url, pageLink: true,
        after: ": " + missed.fields.map(function (f) { return f.prompt + " (" + f.message + ")"; }).join("; ")
      };
    }));
  }

  // Show the page at url in place (push: as a new history entry); resolve with whether it was shown.
  function loadPage(url, push) {
    return network.retried(function () {
      return network.send(url, { headers: network.AJAX, credentials: "same-origin" });
    }, function (attempt) {
      page.say(page.t("next_retrying", { attempt: attempt }), true);
    }).then(function (response) {
      if (!response) {
        busy = false;
        page.say(page.t("next_not_loaded"), true);
        Survey.summary.show(page.t("next_not_loaded_title"), [{ text: page.t("load_again"), href: url }]);
        return false;
      }
      heard(response);
      if (response.redirected || response.status === 401) {
        window.location.assign(response.url || url);
        return false;
      }
      if (!response.ok) {
        busy = false;
        page.say(statusMessage(response.status), true);
        return false;
      }
      return response.text().then(function (html) {
        var container = page.container;
        container.innerHTML = html;
        busy = false;
        // The header's "Save and log out" outlives the old form: enabled again with the new one's buttons.
        if (page.form()) { setBusy(page.form(), false); }
        if (push) { history.pushState({ url: url }, "", url); }
        document.title = container.querySelector(".survey-page .progress label").textContent;
        Survey.follow.answers();
        window.scrollTo(0, 0);
        container.querySelector(".page-title").focus();
        page.say("");
        return true;
      });
    });
  }

  function handleSaved(form, body) {
    if (body.logged_out) {
      // "Save and log out": saved, and the session has ended; the login page says so.
      page.say(page.t("logged_out"));
      window.location.assign(body.login_url);
      return;
    }
    if (body.complete_url) {
      page.say(page.t("finishing"));
      window.location.assign(body.complete_url);
      return;
    }
    if (body.missing && body.missing.length) {
      setBusy(form, false);
      page.say(page.t("saved"));
      showMissing(body.missing);
      return;
    }
    if (body.next_page === body.page) {
      // Next on what the answers made the last page that applies: it comes back offering Finish.
      loadPage(body.next_url, false).then(function (shown) {
        if (shown) { page.say(page.t("last_page")); }
      });
      return;
    }
    page.say(page.t("loading_page", { number: body.next_page }));
    loadPage(body.next_url, true);
  }

  function handleRefused(form, response, body) {
    setBusy(form, false);
    if (response.status === 400 && body.errors) {
      page.say(page.t("fix_below"), true);
      showFieldErrors(form, body.errors);
      return;
    }
    var message = (body.errors && body.errors.__all__ && body.errors.__all__[0]) || page.t("could_not_save");
    page.say(message, true);
    if (body.complete_url) {
      window.location.assign(body.complete_url);
    } else if (body.login_url) {
      Survey.summary.show(message, [{ text: page.t("log_in_again"), href: body.login_url }]);
    }
  }

  // The answers as a form posts them without script (application/x-www-form-urlencoded), not as FormData's
  // multipart body: smaller, and Django reads it several times faster (docs/performance.md).
  function urlEncoded(data) {
    var parts = [];
    data.forEach(function (value, name) {
      parts.push(encodeURIComponent(name) + "=" + encodeURIComponent(value));
    });
    return parts.join("&");
  }

  function save(form, data) {
    setBusy(form, true);
    page.say(page.t("saving"));
    var headers = Object.assign({
      "X-CSRFToken": data.get("csrfmiddlewaretoken"),
      "Content-Type": "application/x-www-form-urlencoded"
    }, network.AJAX);
    var body = urlEncoded(data);
    // A proxy error or an overloaded server: the save may or may not have happened, and resending the same
    // save_id is safe either way.
    network.retried(function () {
      return network.send(form.action, { method: "POST", body: body, headers: headers, credentials: "same-origin" });
    }, function (attempt, delay, retries) {
      page.say(page.t("retrying", { seconds: Math.round(delay / 1000), attempt: attempt, attempts: retries }), true);
    }).then(function (response) {
      if (!response) {
        setBusy(form, false);
        page.say(page.t("unreachable"), true);
        return;
      }
      heard(response);
      if (!network.isJson(response)) {
        setBusy(form, false);
        page.say(statusMessage(response.status) + " " + page.t("not_saved_suffix"), true);
        return;
      }
      return response.json().then(function (answer) {
        if (response.ok && answer.saved) {
          handleSaved(form, answer);
        } else {
          handleRefused(form, response, answer);
        }
      });
    });
  }

  // The form sent by submitter (one of its buttons; none for Enter in a field): post its answers with the
  // button's name and value, as the form does without script, else the forward button's.
  function submit(form, submitter) {
    if (busy) { return; }
    var data = new FormData(form);
    var button = submitter && submitter.name ? submitter : form.querySelector("button.forward");
    data.set(button.name, button.value);
    clearErrors(form);
    save(form, data);
  }

  Survey.saving = { submit: submit, loadPage: loadPage, isBusy: function () { return busy; } };
}(window.Survey = window.Survey || {}));
