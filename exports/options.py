"""What an export is asked for: its format and its options (``ExportOptions``), checked when they are made. Read by
the writers (``exports/writers.py``), the codebook, the export jobs, the command and the staff area's form."""
from dataclasses import dataclass

from exports.variables import IDENTIFYING_FIELDS, ROSTER_FIELDS

FORMATS = ("csv", "xlsx", "spss", "stata")
STATISTICS_FORMATS = ("spss", "stata")
MULTIPLE_LAYOUTS = ("joined", "columns")
# The roster fields of an export unless asked otherwise.
RESPONDENT_COLUMNS = [
    "respondent_id", "external_id", "school_code", "school_name", "grade", "role", "language",
    "status", "started_at", "last_saved_at", "completed_at",
]


class ExportError(ValueError):
    """An export that cannot be made as asked: the message says why."""


class UnknownRosterField(ExportError):
    """A roster field that exports do not have."""


@dataclass(frozen=True)
class ExportOptions:
    """What an export holds (``docs/operations.md``, "Export responses")."""

    labels: bool = False
    multiple: str = "joined"
    roster_fields: tuple[str, ...] = tuple(RESPONDENT_COLUMNS)
    deidentified: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.roster_fields, str):
            raise ExportError("roster_fields is a tuple of field names, not one string.")
        object.__setattr__(self, "roster_fields", tuple(self.roster_fields))
        if self.multiple not in MULTIPLE_LAYOUTS:
            raise ExportError(f"multiple must be one of {', '.join(MULTIPLE_LAYOUTS)}, not {self.multiple!r}")
        unknown = [field for field in self.roster_fields if field not in ROSTER_FIELDS]
        if unknown:
            raise UnknownRosterField(f"Unknown roster field(s): {', '.join(unknown)}. "
                                     f"Allowed: {', '.join(ROSTER_FIELDS)}.")
        if len(set(self.roster_fields)) != len(self.roster_fields):
            raise ExportError("A roster field is named twice.")

    @property
    def exported_roster_fields(self) -> tuple[str, ...]:
        """The roster fields the export holds: those asked for, less what identifies a person when de-identified."""
        if not self.deidentified:
            return self.roster_fields
        return tuple(field for field in self.roster_fields if field not in IDENTIFYING_FIELDS)

    def describe(self) -> str:
        return (f"labels={'yes' if self.labels else 'no'}, multiple={self.multiple}, "
                f"roster fields={','.join(self.exported_roster_fields) or '(none)'}, "
                f"de-identified={'yes' if self.deidentified else 'no'}")
