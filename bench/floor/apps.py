from django.apps import AppConfig


class FloorConfig(AppConfig):
    name = "bench.floor"
    label = "floor"
    verbose_name = "Bench floor"
