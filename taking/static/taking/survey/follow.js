/*
 * The page follows the person's answers before anything is saved (Survey.follow.answers):
 *  - questions whose show_if reads an answer on the same page are shown and hidden (Survey.rules). Without
 *    JavaScript those questions are all shown, each saying when to answer it, and the server ignores the
 *    answers to those whose rule does not hold;
 *  - on a page whose answers decide which later pages apply, "Page X of Y", the progress bar and the forward
 *    button (Next or Finish) keep in step. Without JavaScript the button says what the saved answers make it,
 *    and the server decides where a forward press goes once the page is saved.
 */
(function (Survey) {
  "use strict";
  var page = Survey.page;

  // This page's answer to the field name, as the server stores it.
  function pageAnswer(form, name) {
    var values = [];
    form.querySelectorAll('[name="' + name + '"]').forEach(function (input) {
      if (input.type === "radio" || input.type === "checkbox") {
        if (input.checked) { values.push(input.value); }
      } else {
        values.push(input.value);
      }
    });
    return values.join(" ").trim();
  }

  function applyRules(form) {
    if (!form.dataset.ruleKinds) { return; }
    var kinds = JSON.parse(form.dataset.ruleKinds);
    var answers = JSON.parse(form.dataset.ruleAnswers || "{}");
    // What a rule reads of this page: its answer, or blank for a question
    // not asked; rules read only earlier questions, so one pass in order decides.
    page.answerFields(form).forEach(function (input) {
      var code = page.fieldCode(input.name);
      if (!(code in answers)) { answers[code] = pageAnswer(form, input.name); }
    });
    // This page's calculations, in survey order, from what the page holds (a calculation whose rules do not
    // hold is blank); computed again once the hidden questions read as blank.
    var calculations = JSON.parse(form.dataset.ruleCalculations || "[]");
    function calculate() {
      calculations.forEach(function (entry) {
        var holds = entry[2].every(function (rule) { return Survey.rules.evaluate(rule, answers, kinds); });
        answers[entry[0]] = holds ? Survey.rules.calculate(entry[1], answers, kinds) : "";
      });
    }
    function showAndHide() {
      form.querySelectorAll("[data-show-if]").forEach(function (element) {
        var shown = Survey.rules.evaluate(JSON.parse(element.dataset.showIf), answers, kinds);
        element.hidden = !shown;
        var choice = element.classList.contains("choice");  // a cascading select's choice not offered
        element.querySelectorAll("input, textarea, select").forEach(function (input) {
          input.disabled = !shown;
          var code = page.fieldCode(input.name);
          if (choice) {
            if (!shown && input.checked) { input.checked = false; answers[code] = pageAnswer(form, input.name); }
            return;
          }
          if (!shown && code !== null) { answers[code] = ""; }
        });
      });
    }
    calculate();
    showAndHide();
    if (calculations.length) {
      calculate();
      showAndHide();
    }
    form.querySelectorAll(".condition").forEach(function (note) { note.hidden = true; });
    form.querySelectorAll("fieldset.grid").forEach(function (grid) {
      var rows = grid.querySelectorAll("tr.grid-row");
      grid.hidden = rows.length > 0 && Array.prototype.every.call(rows, function (row) { return row.hidden; });
    });
  }

  // The same walk as SurveyFlow.effective and SurveyFlow.pages (surveys/flow.py): in survey order, a question
  // not asked reads as blank; a page applies when its rule holds.
  function applyRoute(form) {
    if (!form.dataset.route) { return; }
    var route = JSON.parse(form.dataset.route);
    var stored = JSON.parse(form.dataset.routeAnswers || "{}");
    var container = page.container;
    var number = parseInt(container.querySelector(".survey-page").dataset.page, 10);
    var answers = {};
    function applies(pageNumber) {
      var rule = route.pages[String(pageNumber)];
      return !rule || Survey.rules.evaluate(rule, answers, route.kinds);
    }
    route.order.forEach(function (entry) {
      var code = entry[0], on = entry[1], rules = entry[2], calculation = entry[3];
      var asked = applies(on) && rules.every(function (rule) { return Survey.rules.evaluate(rule, answers, route.kinds); });
      if (calculation !== undefined) {  // computed where the walk reaches it, as SurveyFlow.effective does
        answers[code] = asked ? Survey.rules.calculate(calculation, answers, route.kinds) : "";
        return;
      }
      var name = page.fieldName(code);
      var input = form.querySelector('[name="' + name + '"]');
      var value = on === number ? (input && !input.disabled ? pageAnswer(form, name) : "") : (stored[code] || "");
      answers[code] = asked ? value : "";
    });
    var pages = [];
    for (var n = 1; n <= route.count; n += 1) {
      if (n === number || applies(n)) { pages.push(n); }
    }
    var before = pages.indexOf(number);
    var last = pages[pages.length - 1] === number;
    var label = container.querySelector(".progress label");
    var text = page.t("page_of", { number: before + 1, count: pages.length });
    if (document.title.indexOf(label.textContent) === 0) {
      document.title = text + document.title.slice(label.textContent.length);
    }
    label.textContent = text;
    var bar = container.querySelector(".progress progress");
    bar.value = Math.round(100 * before / pages.length);
    bar.textContent = bar.value + "%";
    var forward = form.querySelector("button.forward");
    forward.value = last ? page.nav.FINISH : page.nav.NEXT;
    forward.textContent = page.t(last ? "finish_button" : "next_button");
  }

  function answers() {
    var form = page.form();
    if (!form) { return; }
    applyRules(form);
    applyRoute(form);
  }

  Survey.follow = { answers: answers };
}(window.Survey = window.Survey || {}));
