"""Test data for the bench's tools: JMeter's results files, respondents seeded as the benches seed them."""
import csv

from respondents.models import Respondent


def jtl(path, rows):
    """Write a JMeter results file: rows of (timeStamp ms, elapsed ms, label, responseCode, success, code, page)."""
    with open(path, "w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["timeStamp", "elapsed", "label", "responseCode", "success", "code", "page"])
        writer.writerows(rows)
    return path


def seeded_respondents(survey, count, *, prefix="0"):
    """Respondents as the state-scale benches seed them: straight into the table, no roster; codes start with
    ``prefix``, which real codes never hold."""
    Respondent.objects.bulk_create(Respondent(survey=survey, access_code=f"{prefix}{n:09d}", status="completed")
                                   for n in range(count))
    return list(Respondent.objects.filter(survey=survey))
