/*
 * The survey page as the server hands it to the script, on #survey-page: its messages in the person's language
 * (data-messages, taking/script_messages.py) and the names its form posts (data-contract, taking/forms.py's
 * script_contract): the answer fields' prefix and the values of nav. The script reads those names here and
 * never spells them: the server builds them in one place (PageForm.answer_name), and load plans post them too.
 */
(function (Survey) {
  "use strict";
  var container = document.getElementById("survey-page");
  var status = document.getElementById("save-status");
  var data = container ? container.dataset : {};
  var messages = JSON.parse(data.messages || "{}");
  var contract = JSON.parse(data.contract || "{}");
  var prefix = contract.answer_prefix;

  // A message, its %(name)s placeholders filled from values.
  function t(key, values) {
    var text = messages[key] || key;
    Object.keys(values || {}).forEach(function (name) {
      text = text.split("%(" + name + ")s").join(String(values[name]));
    });
    return text;
  }

  function say(text, problem) {
    status.textContent = text;
    status.classList.toggle("problem", !!problem);
  }

  // The name of the field that posts the answer to question code, and back (PageForm.answer_name, answer_code).
  function fieldName(code) {
    return prefix + code;
  }

  function fieldCode(name) {
    return name.slice(0, prefix.length) === prefix ? name.slice(prefix.length) : null;
  }

  // The form's answer fields, in document order.
  function answerFields(form) {
    return Array.prototype.filter.call(form.querySelectorAll("[name]"), function (field) {
      return fieldCode(field.name) !== null;
    });
  }

  function form() {
    return container.querySelector("form.survey-form");
  }

  Survey.page = {
    ready: !!(container && status && prefix && contract.nav),
    container: container,
    nav: contract.nav,
    t: t,
    say: say,
    fieldName: fieldName,
    fieldCode: fieldCode,
    answerFields: answerFields,
    form: form
  };
}(window.Survey = window.Survey || {}));
