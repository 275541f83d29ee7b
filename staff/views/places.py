"""The school and district pickers' search as you type (``staff/static/staff/pickers.js``): a small JSON list of
the places of the caller's scope whose code or name holds a text."""
from django.http import JsonResponse

from rosters.directory import district_lookup, district_matches, school_matches
from staff.access import StaffRequest, staff_view
from staff.forms.places import PlaceSearchForm, place_label


@staff_view()
def places(request: StaffRequest) -> JsonResponse:
    """?kind=district|school&q=TEXT (&district=CODE OR NAME narrows the schools): {"matches": [{"code", "name",
    "label", "district"}], "more": whether there are others than those listed}; a bad query is 400 with
    {"errors": ...}."""
    form = PlaceSearchForm(request.GET)
    if not form.is_valid():
        return JsonResponse({"errors": form.errors}, status=400)
    query = form.cleaned_data["q"]
    if form.cleaned_data["kind"] == "district":
        found, more = district_matches(scope=request.scope, query=query)
        matches = [{"code": d.code, "name": d.name, "label": place_label(d), "district": ""} for d in found]
    else:
        within = district_lookup(scope=request.scope, text=form.cleaned_data["district"]).found
        schools, more = school_matches(scope=request.scope, query=query, district=within)
        matches = [{"code": s.code, "name": s.name, "label": place_label(s), "district": place_label(s.district)}
                   for s in schools]
    return JsonResponse({"matches": matches, "more": more})
