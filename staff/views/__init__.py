"""The staff screens, a module per screen: thin views over the domain apps' services and selectors, every one
through ``staff_view`` (staff/access.py).

Every object a view touches comes from the scope (``request.scope``): an id
outside it is answered 404, so editing a URL or a form field reaches nobody
of another school.
"""
