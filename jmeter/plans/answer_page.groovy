// JSR223 PreProcessor of survey_taking.jmx's change_page sampler.
// Answer the page the previous sample (its content) showed, as a person might:
// one choice per radio group, a few checkboxes, numbers within min..max, dates, times, short texts.
// A retry (retry.groovy) sends exactly what the first attempt sent, save_id included.
import java.util.concurrent.ThreadLocalRandom

if (vars.get("retry") == "true" && vars.getObject("sent") != null) {
    vars.getObject("sent").each { pair -> sampler.addArgument(pair[0], pair[1]) }
    return
}
def html = prev.getResponseDataAsString()
def random = ThreadLocalRandom.current()
def sent = []
vars.putObject("sent", sent)
def add = { String name, String value ->
    sampler.addArgument(name, value)
    sent << [name, value]
}
def attr = { String tag, String name ->
    def m = (tag =~ /\b${name}="([^"]*)"/)
    m.find() ? m.group(1) : null
}

def groups = [:].withDefault { [] }
(html =~ /<input type="(radio|checkbox)" name="(q-[^"]+)" value="([^"]+)"/).each { all, type, name, value ->
    groups[[type, name]] << value
}
groups.each { key, values ->
    def (type, name) = key
    if (type == "radio") {
        add(name, values[random.nextInt(values.size())])
    } else {
        def chosen = values.findAll { random.nextInt(3) == 0 }
        (chosen ?: [values[0]]).each { add(name, it) }
    }
}
(html =~ /<input type="number"[^>]*>/).each { String tag ->
    def low = (attr(tag, "min") ?: "0") as int
    def high = (attr(tag, "max") ?: "100") as int
    add(attr(tag, "name"), String.valueOf(low + random.nextInt(high - low + 1)))
}
(html =~ /<input type="date"[^>]*>/).each { String tag ->
    add(attr(tag, "name"), String.format("20%02d-%02d-%02d", 10 + random.nextInt(15), 1 + random.nextInt(12), 1 + random.nextInt(28)))
}
(html =~ /<input type="time"[^>]*>/).each { String tag ->
    add(attr(tag, "name"), String.format("%02d:%02d", random.nextInt(24), random.nextInt(60)))
}
(html =~ /<input type="datetime-local"[^>]*>/).each { String tag ->
    add(attr(tag, "name"), String.format("20%02d-%02d-%02dT%02d:%02d", 10 + random.nextInt(15), 1 + random.nextInt(12),
            1 + random.nextInt(28), random.nextInt(24), random.nextInt(60)))
}
def words = ["more", "time", "help", "with", "reading", "friends", "quiet", "space", "clubs", "teachers", "math", "art"]
(html =~ /<(?:input type="text"|textarea)[^>]*>/).each { String tag ->
    def text = (1..(3 + random.nextInt(8))).collect { words[random.nextInt(words.size())] }.join(" ")
    def limit = (attr(tag, "maxlength") ?: "100") as int
    add(attr(tag, "name"), text.take(limit))
}

def saveId = (html =~ /name="save_id" value="([^"]+)"/)
add("save_id", saveId.find() ? saveId.group(1) : UUID.randomUUID().toString())
add("csrfmiddlewaretoken", vars.get("csrf"))
def last = vars.get("page") == vars.get("page_count")
add("nav", last ? "finish" : "next")
vars.put("nav", last ? "finish" : "next")
