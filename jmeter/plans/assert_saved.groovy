// JSR223 Assertion of survey_taking.jmx's change_page sampler: the save was
// acknowledged ("saved": true) and, on the last page, the response completed.
def body = prev.getResponseDataAsString()
def json
try {
    json = new groovy.json.JsonSlurper().parseText(body)
} catch (Exception e) {
    AssertionResult.setFailure(true)
    AssertionResult.setFailureMessage("not JSON (HTTP " + prev.getResponseCode() + "): " + body.take(200))
    return
}
if (json.saved != true) {
    AssertionResult.setFailure(true)
    AssertionResult.setFailureMessage("not saved: " + body.take(300))
} else if (vars.get("nav") == "finish" && json.completed != true) {
    AssertionResult.setFailure(true)
    AssertionResult.setFailureMessage("finish did not complete: " + body.take(300))
}
