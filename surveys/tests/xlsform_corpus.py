"""A corpus of XLSForms as people write them for ODK Collect, Enketo and KoboToolbox, for the importer's tests.

``CORPUS`` maps a form's file name to its sheets and what loading it should do:

- ``survey``, ``choices``, ``settings``: the sheet's rows, the header first (``None``: no such sheet); the
  ODK Central registration form has a fourth, ``entities``;
- ``expect``: ``"loads"``, or ``"refused: FEATURE"`` naming the feature of docs/xlsform.md's refusal table that
  the form uses.

The loading forms keep to what docs/xlsform.md says is read today: no ``calculate`` rows, no ``choice_filter``,
no ``default``. Each is one pyxform converts: a multilingual form's ``form_title`` is written once, in its default
language, as pyxform (4.5) fails on ``form_title::<language>``, and the Kobo export's ``$kuid`` columns are left
off its choices sheet, where pyxform would make them element names of the XForm. ``write_form(directory, name)``
writes one with openpyxl.
"""
from pathlib import Path

import openpyxl


def _sheet(header, *rows):
    """Rows for a sheet whose columns are ``header``: each row a {column: value}.

    A tuple value fills that column in every language, in the header's order: ``"label": ("Yes", "Sí")`` fills
    ``label::English (en)`` and ``label::Español (es)``. A text fills the column of exactly that name.
    """
    sheet = [list(header)]
    for row in rows:
        cells = dict.fromkeys(header, "")
        for key, value in row.items():
            if isinstance(value, tuple):
                columns = [column for column in header if column.split("::")[0] == key and "::" in column]
                assert len(columns) == len(value), (key, value, columns)
                cells.update(zip(columns, value, strict=True))
            else:
                assert key in cells, (key, header)
                cells[key] = value
        sheet.append([cells[column] for column in header])
    return sheet


def _choices(header, *rows):
    """Choice rows: (list_name, name, label in each language ...)."""
    return [list(header), *(list(row) for row in rows)]


# --- 1. ODK Collect, one question a screen: no groups, no settings sheet, English only --------------------------

HOUSEHOLD_HEADER = ["type", "name", "label", "hint", "required", "constraint", "constraint_message", "relevant",
                    "appearance", "default", "calculation"]

HOUSEHOLD_COLLECT = {
    "survey": _sheet(
        HOUSEHOLD_HEADER,
        {"type": "start", "name": "start"},
        {"type": "end", "name": "end"},
        {"type": "today", "name": "today"},
        {"type": "deviceid", "name": "deviceid"},
        {"type": "username", "name": "username"},
        {"type": "note", "name": "intro",
         "label": "This survey asks about the people who live in this household, their drinking water and their "
                  "health. It takes about 15 minutes. Read the consent statement before you begin."},
        {"type": "select_one yes_no", "name": "consent", "label": "Does the head of household agree to take part?",
         "required": "yes"},
        {"type": "text", "name": "village", "label": "Village or settlement", "required": "yes",
         "relevant": "${consent} = 'yes'"},
        {"type": "integer", "name": "hh_size", "label": "How many people usually live and eat in this household?",
         "hint": "Include babies, and anyone away for less than six months.", "required": "yes",
         "constraint": ". >= 1 and . <= 40", "constraint_message": "Enter a number from 1 to 40.",
         "relevant": "${consent} = 'yes'"},
        {"type": "integer", "name": "resp_age", "label": "How old is the respondent, in completed years?",
         "constraint": ". >= 0 and . <= 120", "constraint_message": "Age must be from 0 to 120.",
         "relevant": "${consent} = 'yes'"},
        {"type": "integer", "name": "children", "label": "How many of them are under 15?", "default": "0",
         "constraint": ". >= 0 and . <= ${hh_size}", "relevant": "${consent} = 'yes'"},
        {"type": "calculate", "name": "adults", "calculation": "${hh_size} - coalesce(${children}, 0)"},
        {"type": "note", "name": "many_children", "label": "A household of mostly children: check the roster.",
         "relevant": "${adults} < ${children}"},
        {"type": "select_one sex", "name": "resp_sex", "label": "Sex of the respondent",
         "relevant": "${consent} = 'yes'", "appearance": "minimal"},
        {"type": "select_one education", "name": "head_education",
         "label": "What is the highest level of school the head of household has completed?",
         "relevant": "${consent} = 'yes'", "appearance": "minimal"},
        {"type": "select_one water_source or_other", "name": "water_source",
         "label": "What is the main source of drinking water for members of your household?",
         "required": "yes", "relevant": "${consent} = 'yes'"},
        {"type": "integer", "name": "water_minutes",
         "label": "How long does it take to go there, get water, and come back (in minutes)?",
         "hint": "Enter 0 if the water is on the premises.", "constraint": ". >= 0 and . <= 600",
         "constraint_message": "Enter the minutes, at most 600.",
         "relevant": "${consent} = 'yes' and ${water_source} != 'piped_dwelling'"},
        {"type": "select_one yes_no", "name": "treat_water",
         "label": "Do you do anything to the water to make it safer to drink?", "relevant": "${consent} = 'yes'"},
        {"type": "select_multiple treatment", "name": "treat_method",
         "label": "What do you usually do to make the water safer to drink?", "hint": "Select all that apply.",
         "relevant": "${treat_water} = 'yes'"},
        {"type": "note", "name": "nets_section",
         "label": "Now I would like to ask you about mosquito nets and about the health of young children."},
        {"type": "select_one yes_no", "name": "mosquito_net",
         "label": "Does your household have any mosquito nets that can be used while sleeping?",
         "relevant": "${consent} = 'yes'"},
        {"type": "integer", "name": "nets_count", "label": "How many mosquito nets does your household have?",
         "constraint": ". >= 1 and . <= 20", "constraint_message": "Enter a number from 1 to 20.",
         "relevant": "${mosquito_net} = 'yes'"},
        {"type": "select_one yes_no", "name": "child_sick",
         "label": "In the last two weeks, has any child under five in this household had a fever or diarrhoea?",
         "relevant": "${consent} = 'yes'"},
        {"type": "select_one care_place", "name": "sought_care",
         "label": "Where did you first go for advice or treatment?", "relevant": "${child_sick} = 'yes'"},
        {"type": "note", "name": "ors_advice", "relevant": "${child_sick} = 'yes'",
         "label": "Remind the caregiver: for diarrhoea, give ORS and zinc, and keep breastfeeding."},
        {"type": "text", "name": "comments", "label": "Interviewer's comments", "appearance": "multiline"},
        {"type": "note", "name": "thanks",
         "label": "Thank the respondent for their time. The interview is finished: save the form as finalized."},
    ),
    "choices": _choices(
        ["list_name", "name", "label"],
        ("yes_no", "yes", "Yes"), ("yes_no", "no", "No"),
        ("sex", "female", "Female"), ("sex", "male", "Male"),
        ("education", "none", "No schooling"), ("education", "primary", "Primary"),
        ("education", "secondary", "Secondary"), ("education", "higher", "Higher than secondary"),
        ("education", "dont_know", "Don't know"),
        ("water_source", "piped_dwelling", "Piped into dwelling or yard"),
        ("water_source", "public_tap", "Public tap or standpipe"),
        ("water_source", "borehole", "Tube well or borehole"),
        ("water_source", "protected_well", "Protected dug well"),
        ("water_source", "unprotected_well", "Unprotected dug well"),
        ("water_source", "surface", "Surface water (river, dam, lake, pond)"),
        ("water_source", "bottled", "Bottled water"),
        ("treatment", "boil", "Boil it"), ("treatment", "chlorine", "Add bleach or chlorine"),
        ("treatment", "filter", "Strain it through a cloth or use a water filter"),
        ("treatment", "solar", "Leave it in the sun"), ("treatment", "settle", "Let it stand and settle"),
        ("care_place", "hospital", "Government hospital"), ("care_place", "health_centre", "Health centre or clinic"),
        ("care_place", "chw", "Community health worker"), ("care_place", "pharmacy", "Pharmacy or drug shop"),
        ("care_place", "traditional", "Traditional healer"),
    ),
    "settings": None,
    "expect": "loads",
}


# --- 2. Enketo's pages theme: every top-level group a page, a Likert grid inside one; English and Spanish --------

CLIMATE_HEADER = ["type", "name", "label::English (en)", "label::Español (es)", "hint::English (en)",
                  "hint::Español (es)", "required", "required_message::English (en)",
                  "required_message::Español (es)", "relevant", "constraint", "constraint_message::English (en)",
                  "constraint_message::Español (es)", "appearance"]
_CHOOSE_ONE = ("Please choose one answer.", "Por favor, elija una respuesta.")

SCHOOL_CLIMATE_ENKETO = {
    "survey": _sheet(
        CLIMATE_HEADER,
        {"type": "begin group", "name": "welcome", "label": ("Welcome", "Bienvenida")},
        {"type": "note", "name": "welcome_note",
         "label": ("This survey asks how you feel about your school. It is anonymous: your name is not recorded, and "
                   "no one at school will see your own answers.",
                   "Esta encuesta pregunta cómo se siente en su escuela. Es anónima: no se registra su nombre y nadie "
                   "en la escuela verá sus respuestas.")},
        {"type": "select_one role", "name": "role",
         "label": ("Which of these describes you?", "¿Cuál de estas opciones lo describe?"), "required": "yes",
         "required_message": _CHOOSE_ONE},
        {"type": "select_one grade", "name": "grade", "label": ("What grade are you in?", "¿En qué grado está?"),
         "relevant": "${role} = 'student'", "appearance": "minimal"},
        {"type": "end group"},
        {"type": "begin group", "name": "safety", "label": ("Safety and belonging", "Seguridad y pertenencia")},
        {"type": "begin group", "name": "safety_grid",
         "label": ("How much do you agree with each statement?", "¿Qué tan de acuerdo está con cada afirmación?"),
         "appearance": "table-list"},
        {"type": "select_one agree", "name": "safe_class",
         "label": ("I feel safe in my classroom.", "Me siento seguro/a en mi salón de clases."), "required": "yes",
         "required_message": _CHOOSE_ONE},
        {"type": "select_one agree", "name": "safe_grounds",
         "label": ("I feel safe in the hallways, bathrooms and schoolyard.",
                   "Me siento seguro/a en los pasillos, los baños y el patio."), "required": "yes",
         "required_message": _CHOOSE_ONE},
        {"type": "select_one agree", "name": "adults_care",
         "label": ("At least one adult at this school cares about me.",
                   "Al menos un adulto de esta escuela se preocupa por mí.")},
        {"type": "select_one agree", "name": "rules_fair",
         "label": ("School rules are applied fairly to all students.",
                   "Las reglas de la escuela se aplican de manera justa a todos los estudiantes.")},
        {"type": "end group"},
        {"type": "text", "name": "unsafe_where",
         "label": ("Where at school do you feel least safe?", "¿En qué lugar de la escuela se siente menos seguro/a?"),
         "hint": ("You do not have to name anyone.", "No tiene que nombrar a nadie."),
         "relevant": "${safe_grounds} = '1' or ${safe_grounds} = '2'", "appearance": "multiline"},
        {"type": "end group"},
        {"type": "note", "name": "bullying_intro",
         "label": ("The next questions are about bullying: when a student is hurt, threatened or left out again and "
                   "again on purpose.",
                   "Las siguientes preguntas son sobre el acoso: cuando a un estudiante lo lastiman, lo amenazan o lo "
                   "excluyen una y otra vez a propósito.")},
        {"type": "select_one yes_no", "name": "bullied",
         "label": ("In the past 30 days, has another student bullied you at school?",
                   "En los últimos 30 días, ¿otro estudiante lo/la ha acosado en la escuela?"),
         "required": "yes", "required_message": _CHOOSE_ONE, "relevant": "${role} = 'student'"},
        {"type": "begin group", "name": "bullying", "label": ("About what happened", "Sobre lo que pasó"),
         "relevant": "${bullied} = 'yes'"},
        {"type": "select_multiple bully_kind", "name": "bully_kind",
         "label": ("What happened?", "¿Qué pasó?"),
         "hint": ("Select all that apply.", "Seleccione todas las que correspondan.")},
        {"type": "note", "name": "counsellor", "relevant": "count-selected(${bully_kind}) >= 2",
         "label": ("You told us about more than one kind of bullying. The school counsellor is in room 12 every "
                   "day at lunch, and you can go without an appointment.",
                   "Nos contó más de un tipo de acoso. La consejera escolar está en el salón 12 todos los días a la "
                   "hora del almuerzo, y puede ir sin cita.")},
        {"type": "select_one yes_no", "name": "told_adult",
         "label": ("Did you tell an adult at school?", "¿Se lo contó a un adulto de la escuela?")},
        {"type": "end group"},
        {"type": "begin group", "name": "teaching", "label": ("For teachers", "Para docentes"),
         "relevant": "${role} = 'teacher'"},
        {"type": "integer", "name": "years_teaching",
         "label": ("How many years have you taught, counting this one?",
                   "¿Cuántos años ha enseñado, contando este?"),
         "constraint": ". >= 0 and . <= 50",
         "constraint_message": ("Enter a number from 0 to 50.", "Escriba un número del 0 al 50.")},
        {"type": "select_one agree", "name": "leadership_support",
         "label": ("I get the support I need from the school's leadership.",
                   "Recibo el apoyo que necesito de la dirección de la escuela."), "appearance": "likert"},
        {"type": "end group"},
        {"type": "note", "name": "thanks",
         "label": ("Thank you for taking part!", "¡Gracias por participar!")},
    ),
    "choices": _choices(
        ["list_name", "name", "label::English (en)", "label::Español (es)"],
        ("role", "student", "Student", "Estudiante"), ("role", "teacher", "Teacher", "Docente"),
        ("role", "staff", "Other school staff", "Otro personal de la escuela"),
        ("grade", "6", "Grade 6", "Sexto grado"), ("grade", "7", "Grade 7", "Séptimo grado"),
        ("grade", "8", "Grade 8", "Octavo grado"),
        ("agree", "1", "Strongly disagree", "Muy en desacuerdo"), ("agree", "2", "Disagree", "En desacuerdo"),
        ("agree", "3", "Agree", "De acuerdo"), ("agree", "4", "Strongly agree", "Muy de acuerdo"),
        ("yes_no", "yes", "Yes", "Sí"), ("yes_no", "no", "No", "No"),
        ("bully_kind", "verbal", "Called names or teased", "Me insultaron o se burlaron de mí"),
        ("bully_kind", "physical", "Hit, pushed or kicked", "Me golpearon, empujaron o patearon"),
        ("bully_kind", "excluded", "Left out on purpose", "Me excluyeron a propósito"),
        ("bully_kind", "online", "Online or by phone", "Por internet o por teléfono"),
        ("bully_kind", "property", "Things taken or broken", "Me quitaron o rompieron cosas"),
    ),
    "settings": [
        ["form_id", "form_title", "default_language", "style", "version"],
        ["school_climate_2025", "School Climate Survey 2025", "English (en)", "pages", "2025031001"],
    ],
    "expect": "loads",
}


# --- 3. A clinic's outpatient form in French, languages named plainly (label::French); field-list pages ----------

CLINIC_HEADER = ["type", "name", "label::French", "hint::French", "required", "required_message::French",
                 "constraint", "constraint_message::French", "relevant", "appearance"]

CLINIC_VISIT_FR = {
    "survey": _sheet(
        CLINIC_HEADER,
        {"type": "start", "name": "debut"},
        {"type": "end", "name": "fin"},
        {"type": "begin group", "name": "arrivee", "label": ("Arrivée du patient",), "appearance": "field-list"},
        {"type": "note", "name": "intro_arrivee",
         "label": ("Remplir cette fiche pour chaque patient vu en consultation externe.",)},
        {"type": "date", "name": "date_visite", "label": ("Date de la visite",), "required": "yes",
         "required_message": ("Indiquez la date de la visite.",)},
        {"type": "time", "name": "heure_arrivee", "label": ("Heure d'arrivée au centre de santé",),
         "required": "yes", "required_message": ("Indiquez l'heure d'arrivée.",)},
        {"type": "time", "name": "heure_consultation", "label": ("Heure du début de la consultation",),
         "constraint": ". >= ${heure_arrivee}",
         "constraint_message": ("La consultation ne peut pas commencer avant l'arrivée du patient.",)},
        {"type": "end group"},
        {"type": "begin group", "name": "patient", "label": ("Le patient",), "appearance": "field-list"},
        {"type": "select_one sexe", "name": "sexe", "label": ("Sexe du patient",), "required": "yes",
         "appearance": "horizontal"},
        {"type": "integer", "name": "age_ans", "label": ("Âge du patient (en années révolues)",),
         "hint": ("Pour un enfant de moins d'un an, inscrire 0.",), "required": "yes",
         "required_message": ("Veuillez indiquer l'âge du patient.",), "constraint": ". >= 0 and . <= 120",
         "constraint_message": ("L'âge doit être compris entre 0 et 120 ans.",)},
        {"type": "select_one oui_non", "name": "enceinte", "label": ("La patiente est-elle enceinte ?",),
         "relevant": "${sexe} = 'feminin' and ${age_ans} >= 12 and ${age_ans} <= 50"},
        {"type": "end group"},
        {"type": "begin group", "name": "examen", "label": ("Motif et examen",), "appearance": "field-list"},
        {"type": "select_one motif or_other", "name": "motif", "label": ("Motif principal de la consultation",),
         "required": "yes"},
        {"type": "decimal", "name": "temperature", "label": ("Température axillaire (°C)",),
         "constraint": ". >= 34 and . <= 43",
         "constraint_message": ("La température doit être comprise entre 34 et 43 °C.",)},
        {"type": "note", "name": "alerte_fievre", "relevant": "${temperature} >= 38",
         "label": ("Fièvre : faire un test de diagnostic rapide (TDR) du paludisme.",)},
        {"type": "select_one resultat_tdr", "name": "tdr", "label": ("Résultat du TDR paludisme",),
         "relevant": "${temperature} >= 38"},
        {"type": "decimal", "name": "poids", "label": ("Poids (kg)",), "constraint": ". > 0 and . <= 250",
         "constraint_message": ("Le poids doit être supérieur à 0 et au plus 250 kg.",)},
        {"type": "end group"},
        {"type": "begin group", "name": "suite", "label": ("Suite donnée",), "appearance": "field-list"},
        {"type": "select_one oui_non", "name": "rdv", "label": ("Un rendez-vous de suivi est-il prévu ?",)},
        {"type": "dateTime", "name": "rdv_date", "label": ("Date et heure du rendez-vous de suivi",),
         "relevant": "${rdv} = 'oui'"},
        {"type": "acknowledge", "name": "confirmation",
         "label": ("Je confirme que les informations saisies sont exactes.",), "required": "yes",
         "required_message": ("Cochez la case pour confirmer avant d'envoyer.",)},
        {"type": "end group"},
    ),
    "choices": _choices(
        ["list_name", "name", "label::French"],
        ("sexe", "feminin", "Féminin"), ("sexe", "masculin", "Masculin"),
        ("oui_non", "oui", "Oui"), ("oui_non", "non", "Non"),
        ("motif", "fievre", "Fièvre"), ("motif", "toux", "Toux ou difficultés respiratoires"),
        ("motif", "diarrhee", "Diarrhée"), ("motif", "blessure", "Blessure ou brûlure"),
        ("motif", "cpn", "Consultation prénatale"), ("motif", "vaccination", "Vaccination"),
        ("resultat_tdr", "positif", "Positif"), ("resultat_tdr", "negatif", "Négatif"),
        ("resultat_tdr", "non_fait", "Test non réalisé (rupture de stock)"),
    ),
    "settings": [
        ["form_id", "form_title", "default_language", "version"],
        ["visite_clinique", "Fiche de consultation externe", "French", "2024110701"],
    ],
    "expect": "loads",
}


# --- 4. A parent survey in English and Chinese (label::chinese): nested organising groups with relevant ----------

PARENT_HEADER = ["type", "name", "label::English (en)", "label::chinese", "hint::English (en)", "hint::chinese",
                 "required", "relevant", "constraint", "constraint_message::English (en)",
                 "constraint_message::chinese", "appearance"]

PARENT_SURVEY_ZH = {
    "survey": _sheet(
        PARENT_HEADER,
        {"type": "note", "name": "welcome",
         "label": ("Thank you for helping us understand how families experience our school. The survey takes about "
                   "ten minutes, and you may skip any question.",
                   "感谢您帮助我们了解家庭对学校的看法。本问卷大约需要十分钟，您可以跳过任何问题。")},
        {"type": "select_one relationship", "name": "relationship",
         "label": ("What is your relationship to the student?", "您与学生是什么关系？"), "required": "yes"},
        {"type": "select_one yes_no", "name": "other_language",
         "label": ("Is a language other than English spoken at home?", "您家中是否使用英语以外的语言？")},
        {"type": "select_one grade", "name": "child_grade",
         "label": ("What grade is your child in?", "您的孩子上几年级？"),
         "hint": ("If you have more than one child at the school, answer for the oldest.",
                  "如果您有多个孩子在本校就读，请以年龄最大的孩子作答。"), "appearance": "minimal"},
        {"type": "begin group", "name": "after_school", "label": ("After school", "课后活动")},
        {"type": "select_multiple activity", "name": "child_activities",
         "label": ("Which activities does your child take part in after school?", "您的孩子放学后参加哪些活动？"),
         "hint": ("Select all that apply.", "可多选。"),
         "constraint": "not(selected(., 'none') and count-selected(.) > 1)",
         "constraint_message": ("'None' cannot be chosen together with other answers.",
                                "“都不参加”不能与其他选项同时选择。")},
        {"type": "begin group", "name": "busy", "label": ("A busy week", "繁忙的一周"),
         "relevant": "count-selected(${child_activities}) >= 2"},
        {"type": "select_one hours", "name": "activity_hours",
         "label": ("On a typical school day, how many hours does your child spend on these activities?",
                   "在平常的上学日，您的孩子每天花几个小时参加这些活动？")},
        {"type": "select_one yes_no", "name": "enough_rest",
         "label": ("Do you feel your child gets enough rest?", "您觉得孩子的休息时间足够吗？")},
        {"type": "end group"},
        {"type": "begin group", "name": "tutoring", "label": ("Tutoring", "课外辅导"),
         "relevant": "selected(${child_activities}, 'tutoring')"},
        {"type": "integer", "name": "tutoring_cost",
         "label": ("About how much does your family spend on tutoring each month, in dollars?",
                   "您家每月大约在课外辅导上花费多少美元？"),
         "constraint": ". >= 0 and . <= 5000",
         "constraint_message": ("Enter an amount from 0 to 5000.", "请输入 0 到 5000 之间的金额。")},
        {"type": "end group"},
        {"type": "end group"},
        {"type": "begin group", "name": "communication", "label": ("Hearing from the school", "学校沟通")},
        {"type": "select_multiple channel", "name": "contact_channels",
         "label": ("How does the school usually contact you?", "学校通常通过什么方式与您联系？")},
        {"type": "select_one frequency", "name": "meeting_freq",
         "label": ("How often have you met your child's teacher this school year?", "本学年您与孩子的老师见过几次面？"),
         "relevant": "selected(${contact_channels}, 'meeting')"},
        {"type": "select_one yes_no", "name": "interpreter",
         "label": ("Would you like an interpreter at parent-teacher meetings?", "您希望家长会上有翻译吗？"),
         "relevant": "${other_language} = 'yes'"},
        {"type": "text", "name": "suggestions",
         "label": ("What could the school do to communicate better with your family?",
                   "学校可以怎样改进与您家庭的沟通？"), "appearance": "multiline"},
        {"type": "end group"},
        {"type": "note", "name": "thanks",
         "label": ("Thank you! Your answers will be shared with the school council as a summary only.",
                   "谢谢！您的回答只会以汇总形式提交给学校委员会。")},
    ),
    "choices": _choices(
        ["list_name", "name", "label::English (en)", "label::chinese"],
        ("relationship", "mother", "Mother", "母亲"), ("relationship", "father", "Father", "父亲"),
        ("relationship", "grandparent", "Grandparent", "祖父母"),
        ("relationship", "guardian", "Other guardian", "其他监护人"),
        ("yes_no", "yes", "Yes", "是"), ("yes_no", "no", "No", "否"),
        ("grade", "k", "Kindergarten", "幼儿园"), ("grade", "1", "Grade 1", "一年级"), ("grade", "2", "Grade 2", "二年级"),
        ("grade", "3", "Grade 3", "三年级"), ("grade", "4", "Grade 4", "四年级"), ("grade", "5", "Grade 5", "五年级"),
        ("activity", "sports", "Sports", "体育运动"), ("activity", "music", "Music or art", "音乐或美术"),
        ("activity", "tutoring", "Tutoring or extra classes", "课外辅导或补习班"),
        ("activity", "language", "Heritage language school", "母语学校"),
        ("activity", "care", "After-school care", "课后托管"), ("activity", "none", "None", "都不参加"),
        ("hours", "lt1", "Less than 1 hour", "不到 1 小时"), ("hours", "1to2", "1 to 2 hours", "1 到 2 小时"),
        ("hours", "gt2", "More than 2 hours", "超过 2 小时"),
        ("channel", "app", "School app", "学校应用程序"), ("channel", "email", "Email", "电子邮件"),
        ("channel", "paper", "Notes sent home", "带回家的通知单"), ("channel", "phone", "Phone call", "电话"),
        ("channel", "meeting", "Meetings in person", "当面会谈"),
        ("frequency", "never", "Not yet", "还没有"), ("frequency", "once", "Once", "一次"),
        ("frequency", "several", "Two or more times", "两次或以上"),
    ),
    "settings": [
        ["form_id", "form_title", "default_language"],
        ["parent_survey", "Parent and Family Survey", "English (en)"],
    ],
    "expect": "loads",
}


# --- 5. Teacher training feedback in English and Swahili (label::Kiswahili (sw)): a table-list page -------------

TEACHER_HEADER = ["type", "name", "label::English (en)", "label::Kiswahili (sw)", "hint::English (en)",
                  "hint::Kiswahili (sw)", "required", "required_message::English (en)",
                  "required_message::Kiswahili (sw)", "relevant", "constraint", "constraint_message::English (en)",
                  "constraint_message::Kiswahili (sw)", "appearance"]
_PICK = ("Please choose an answer.", "Tafadhali chagua jibu.")

TEACHER_FEEDBACK_SW = {
    "survey": _sheet(
        TEACHER_HEADER,
        {"type": "begin group", "name": "about", "label": ("About you", "Kuhusu wewe"), "appearance": "field-list"},
        {"type": "note", "name": "about_intro",
         "label": ("Your answers help us improve the next training. They are confidential.",
                   "Majibu yako yatatusaidia kuboresha mafunzo yajayo. Ni ya siri.")},
        {"type": "select_one level", "name": "level",
         "label": ("At which level do you teach?", "Unafundisha katika ngazi gani?"), "required": "yes",
         "required_message": _PICK},
        {"type": "select_multiple subject", "name": "subjects",
         "label": ("Which subjects do you teach?", "Unafundisha masomo gani?"),
         "hint": ("Select all that apply.", "Chagua yote yanayohusika.")},
        {"type": "integer", "name": "class_size",
         "label": ("How many pupils are in your largest class?", "Darasa lako kubwa zaidi lina wanafunzi wangapi?"),
         "constraint": ". >= 1 and . <= 200",
         "constraint_message": ("Enter a number from 1 to 200.", "Andika namba kati ya 1 na 200.")},
        {"type": "end group"},
        {"type": "begin group", "name": "usefulness",
         "label": ("How useful was each session?", "Kila kipindi kilikuwa na manufaa kiasi gani?"),
         "appearance": "table-list"},
        {"type": "select_one useful", "name": "useful_header", "label": ("Session", "Kipindi"), "appearance": "label"},
        {"type": "select_one useful", "name": "lesson_planning", "label": ("Lesson planning", "Kupanga somo"),
         "required": "yes", "required_message": _PICK, "appearance": "list-nolabel"},
        {"type": "select_one useful", "name": "classroom_mgmt",
         "label": ("Classroom management", "Usimamizi wa darasa"), "appearance": "list-nolabel"},
        {"type": "select_one useful", "name": "assessment",
         "label": ("Assessing pupils' learning", "Kupima ujifunzaji wa wanafunzi"), "appearance": "list-nolabel"},
        {"type": "select_one useful", "name": "inclusive",
         "label": ("Inclusive education", "Elimu jumuishi"), "appearance": "list-nolabel"},
        {"type": "end group"},
        {"type": "begin group", "name": "improve", "label": ("Improving the training", "Kuboresha mafunzo"),
         "appearance": "field-list"},
        {"type": "text", "name": "assessment_why",
         "label": ("What would have made the assessment session more useful?",
                   "Ni nini kingefanya kipindi cha upimaji kiwe na manufaa zaidi?"),
         "relevant": "${assessment} = '1'", "appearance": "multiline"},
        {"type": "select_one yes_no", "name": "use_next_term",
         "label": ("Will you use what you learned in your classroom next term?",
                   "Je, utatumia ulichojifunza darasani kwako muhula ujao?"), "required": "yes",
         "required_message": _PICK},
        {"type": "select_one rating", "name": "facilitator",
         "label": ("How would you rate the facilitators?", "Ungewapa wawezeshaji alama gani?"),
         "appearance": "horizontal"},
        {"type": "end group"},
        {"type": "note", "name": "thanks",
         "label": ("Thank you for your feedback.", "Asante kwa maoni yako.")},
    ),
    "choices": _choices(
        ["list_name", "name", "label::English (en)", "label::Kiswahili (sw)"],
        ("level", "pre_primary", "Pre-primary", "Elimu ya awali"), ("level", "primary", "Primary", "Shule ya msingi"),
        ("level", "secondary", "Secondary", "Sekondari"),
        ("subject", "kiswahili", "Kiswahili", "Kiswahili"), ("subject", "english", "English", "Kiingereza"),
        ("subject", "maths", "Mathematics", "Hisabati"), ("subject", "science", "Science", "Sayansi"),
        ("subject", "social", "Social studies", "Maarifa ya jamii"),
        ("useful", "1", "Not useful", "Haikuwa na manufaa"), ("useful", "2", "Somewhat useful", "Ilikuwa na manufaa kiasi"),
        ("useful", "3", "Very useful", "Ilikuwa na manufaa sana"),
        ("yes_no", "yes", "Yes", "Ndiyo"), ("yes_no", "no", "No", "Hapana"),
        ("rating", "poor", "Poor", "Dhaifu"), ("rating", "fair", "Fair", "Wastani"), ("rating", "good", "Good", "Nzuri"),
        ("rating", "excellent", "Excellent", "Bora sana"),
    ),
    "settings": [
        ["form_id", "form_title", "default_language", "version"],
        ["teacher_training_feedback", "Teacher Training Feedback", "English (en)", "3"],
    ],
    "expect": "loads",
}


# --- 6. An early grade reading assessment in Arabic and English: field-list pages, notes with relevant ----------

READING_HEADER = ["type", "name", "label::Arabic (ar)", "label::English (en)", "hint::Arabic (ar)",
                  "hint::English (en)", "required", "required_message::Arabic (ar)", "required_message::English (en)",
                  "constraint", "constraint_message::Arabic (ar)", "constraint_message::English (en)", "relevant",
                  "appearance"]

READING_ASSESSMENT_AR = {
    "survey": _sheet(
        READING_HEADER,
        {"type": "start", "name": "start"},
        {"type": "end", "name": "end"},
        {"type": "today", "name": "today"},
        {"type": "begin group", "name": "pupil", "label": ("معلومات التلميذ", "Pupil information"),
         "appearance": "field-list"},
        {"type": "note", "name": "assent_script",
         "label": ("اقرأ نص الموافقة على التلميذ قبل البدء.", "Read the assent script to the pupil before you begin.")},
        {"type": "select_one yes_no", "name": "assent",
         "label": ("هل وافق التلميذ على المشاركة؟", "Did the pupil agree to take part?"), "required": "yes",
         "required_message": ("يرجى اختيار إجابة.", "Please choose an answer.")},
        {"type": "note", "name": "no_assent", "relevant": "${assent} = 'no'",
         "label": ("اشكر التلميذ ولا تكمل التقييم.", "Thank the pupil and do not continue the assessment.")},
        {"type": "select_one grade", "name": "grade", "label": ("الصف", "Grade"), "relevant": "${assent} = 'yes'",
         "appearance": "horizontal"},
        {"type": "integer", "name": "age", "label": ("عمر التلميذ بالسنوات", "Pupil's age in years"),
         "relevant": "${assent} = 'yes'", "constraint": ". >= 5 and . <= 15",
         "constraint_message": ("يجب أن يكون العمر بين 5 و15 سنة.", "Age must be from 5 to 15.")},
        {"type": "end group"},
        {"type": "begin group", "name": "letters", "label": ("معرفة أصوات الحروف", "Letter sound knowledge"),
         "appearance": "field-list", "relevant": "${assent} = 'yes'"},
        {"type": "note", "name": "letters_instructions",
         "label": ("اطلب من التلميذ قراءة أكبر عدد ممكن من أصوات الحروف في دقيقة واحدة.",
                   "Ask the pupil to say as many letter sounds as they can in one minute.")},
        {"type": "integer", "name": "letters_correct",
         "label": ("عدد أصوات الحروف الصحيحة", "Number of correct letter sounds"), "required": "yes",
         "required_message": ("أدخل عدد الإجابات الصحيحة.", "Enter the number correct."),
         "constraint": ". >= 0 and . <= 100",
         "constraint_message": ("يجب أن يكون العدد بين 0 و100.", "The number must be from 0 to 100.")},
        {"type": "note", "name": "early_stop", "relevant": "${letters_correct} < 5",
         "label": ("أقل من 5 إجابات صحيحة: أوقف التقييم هنا.", "Fewer than 5 correct: stop the assessment here.")},
        {"type": "end group"},
        {"type": "begin group", "name": "passage", "label": ("قراءة النص", "Oral reading passage"),
         "appearance": "field-list", "relevant": "${assent} = 'yes' and ${letters_correct} >= 5"},
        {"type": "integer", "name": "words_correct",
         "label": ("عدد الكلمات المقروءة بشكل صحيح في دقيقة واحدة", "Words read correctly in one minute"),
         "hint": ("النص يتكون من 60 كلمة.", "The passage has 60 words."), "constraint": ". >= 0 and . <= 60",
         "constraint_message": ("لا يتجاوز النص 60 كلمة.", "The passage has only 60 words.")},
        {"type": "select_one comprehension", "name": "comp_market",
         "label": ("لماذا ذهبت سلمى إلى السوق؟", "Why did Salma go to the market?"), "appearance": "horizontal"},
        {"type": "select_one comprehension", "name": "comp_brother",
         "label": ("ماذا اشترت سلمى لأخيها؟", "What did Salma buy for her brother?"),
         "relevant": "${words_correct} >= 20"},
        {"type": "end group"},
        {"type": "note", "name": "thanks", "label": ("انتهى التقييم. شكرًا لك.", "The assessment is finished. Thank you.")},
    ),
    "choices": _choices(
        ["list_name", "name", "label::Arabic (ar)", "label::English (en)"],
        ("yes_no", "yes", "نعم", "Yes"), ("yes_no", "no", "لا", "No"),
        ("grade", "1", "الصف الأول", "Grade 1"), ("grade", "2", "الصف الثاني", "Grade 2"),
        ("grade", "3", "الصف الثالث", "Grade 3"),
        ("comprehension", "correct", "إجابة صحيحة", "Correct"), ("comprehension", "incorrect", "إجابة خاطئة", "Incorrect"),
        ("comprehension", "no_answer", "لا إجابة", "No response"),
    ),
    "settings": [
        ["form_id", "form_title", "default_language"],
        ["early_grade_reading", "تقييم القراءة في الصفوف الأولى", "Arabic (ar)"],
    ],
    "expect": "loads",
}


# --- 7. A KoboToolbox export: $kuid and $autoname columns, true/false, guidance hints, acknowledge, a grid -------

KOBO_HEADER = ["type", "$kuid", "name", "$autoname", "label::English (en)", "label::Spanish (es)",
               "hint::English (en)", "hint::Spanish (es)", "guidance_hint::English (en)", "required", "relevant",
               "constraint", "constraint_message::English (en)", "constraint_message::Spanish (es)", "appearance"]


def _kobo(kuid, **row):
    return {"$kuid": kuid, "$autoname": row.get("name", ""), **row}


YOUTH_WELLBEING_KOBO = {
    "survey": _sheet(
        KOBO_HEADER,
        _kobo("kR7fT2aQ", type="start", name="start"),
        _kobo("pL3mX9cW", type="end", name="end"),
        _kobo("hD5sN1vB", type="acknowledge", name="consent",
              label=("I have read the information sheet and agree to take part.",
                     "He leído la hoja informativa y acepto participar."), required="true"),
        _kobo("tY8gK4eZ", type="begin_group", name="about", label=("About you", "Sobre ti"),
              relevant="${consent} = 'OK'"),
        _kobo("wQ2jR6uP", type="integer", name="age", label=("How old are you?", "¿Cuántos años tienes?"),
              required="true", constraint=". >= 15 and . <= 24",
              constraint_message=("This survey is for young people aged 15 to 24.",
                                  "Esta encuesta es para jóvenes de 15 a 24 años.")),
        _kobo("nB6vC3xM", type="select_one gender", name="gender", label=("Gender", "Género"), required="false",
              appearance="horizontal"),
        _kobo("zF1dH7sL", type="select_one yes_no", name="in_school",
              label=("Are you in school, training or a job at the moment?",
                     "¿Estás estudiando, en formación o trabajando en este momento?"), required="false",
              appearance="horizontal"),
        _kobo("gU4kP8rT", type="end_group"),
        _kobo("cJ9wE2nV", type="begin_group", name="feelings", label=("Over the last two weeks", "En las últimas dos semanas"),
              appearance="field-list", relevant="${consent} = 'OK'"),
        _kobo("mS5qA1yD", type="begin_group", name="phq4",
              label=("How often have you been bothered by the following?",
                     "¿Con qué frecuencia te han molestado los siguientes problemas?"), appearance="table-list"),
        _kobo("xH3bL6oG", type="select_one frequency", name="little_interest",
              label=("Little interest or pleasure in doing things", "Poco interés o placer en hacer cosas"),
              required="true"),
        _kobo("vE7tW2iK", type="select_one frequency", name="feeling_down",
              label=("Feeling down, depressed or hopeless", "Sentirte desanimado/a, deprimido/a o sin esperanza"),
              required="true"),
        _kobo("oR1yN5fC", type="select_one frequency", name="nervous",
              label=("Feeling nervous, anxious or on edge", "Sentirte nervioso/a, ansioso/a o con los nervios de punta"),
              required="true"),
        _kobo("aZ8cM3dQ", type="select_one frequency", name="worrying",
              label=("Not being able to stop or control worrying",
                     "No poder dejar de preocuparte o no poder controlar la preocupación"), required="true"),
        _kobo("iP4uV9sJ", type="end_group"),
        _kobo("eK6gT1wB", type="note", name="helpline", relevant="${feeling_down} = '3' or ${worrying} = '3'",
              label=("If you are struggling, you can talk to someone today: call or text the youth helpline on 116 111. "
                     "It is free and confidential.",
                     "Si lo estás pasando mal, puedes hablar con alguien hoy: llama o escribe a la línea de ayuda "
                     "juvenil al 116 111. Es gratuita y confidencial."),
              **{"guidance_hint::English (en)": "Enumerators: make sure the respondent sees this message."}),
        _kobo("sW2nX7hF", type="end_group"),
        _kobo("bL9rD4kY", type="begin_group", name="support", label=("Support", "Apoyo"), appearance="field-list",
              relevant="${consent} = 'OK'"),
        _kobo("fT3eQ8mA", type="select_multiple support_source", name="talk_to",
              label=("Who do you talk to when something is worrying you?",
                     "¿Con quién hablas cuando algo te preocupa?"),
              hint=("Choose all that apply.", "Elige todas las que correspondan."), required="false",
              constraint="not(selected(., 'nobody') and count-selected(.) > 1)",
              constraint_message=("'Nobody' cannot be chosen with other answers.",
                                  "'Nadie' no puede elegirse junto con otras respuestas.")),
        _kobo("uC5hJ2pN", type="select_one yes_no", name="youth_worker",
              label=("Would you like a youth worker to contact you?",
                     "¿Te gustaría que un trabajador juvenil se pusiera en contacto contigo?"), required="false",
              relevant="selected(${talk_to}, 'nobody') or count-selected(${talk_to}) = 0"),
        _kobo("dM7aS3vR", type="end_group"),
    ),
    "choices": _choices(
        ["list_name", "name", "label::English (en)", "label::Spanish (es)"],
        ("gender", "female", "Female", "Femenino"), ("gender", "male", "Male", "Masculino"),
        ("gender", "other", "Another gender", "Otro género"),
        ("gender", "no_say", "Prefer not to say", "Prefiero no decirlo"),
        ("yes_no", "yes", "Yes", "Sí"), ("yes_no", "no", "No", "No"),
        ("frequency", "0", "Not at all", "Nunca"), ("frequency", "1", "Several days", "Varios días"),
        ("frequency", "2", "More than half the days", "Más de la mitad de los días"),
        ("frequency", "3", "Nearly every day", "Casi todos los días"),
        ("support_source", "parent", "A parent or carer", "Mi madre, mi padre o quien me cuida"),
        ("support_source", "friend", "A friend", "Un amigo o una amiga"),
        ("support_source", "teacher", "A teacher or coach", "Un profesor o entrenador"),
        ("support_source", "online", "Someone online", "Alguien en internet"),
        ("support_source", "nobody", "Nobody", "Nadie"),
    ),
    "settings": [
        ["form_title", "version", "default_language"],
        ["Youth Wellbeing Check-in", "vKp3dL9sQ2mXw8eYtR4hZa", "English (en)"],
    ],
    "expect": "loads",
}


# --- 8. A stock count without selects: no choices sheet; runs, a field-list page, a time; instance_name ---------

STOCK_HEADER = ["type", "name", "label", "hint", "required", "constraint", "constraint_message", "relevant",
                "appearance"]
_NOT_NEGATIVE = {"constraint": ". >= 0", "constraint_message": "A count cannot be negative."}

CLINIC_STOCK_COUNT = {
    "survey": _sheet(
        STOCK_HEADER,
        {"type": "today", "name": "today"},
        {"type": "note", "name": "intro",
         "label": "Count the stock on the shelf at the end of the day. Do not count expired or damaged stock."},
        {"type": "date", "name": "count_date", "label": "Date of the count", "required": "yes"},
        {"type": "text", "name": "facility_code", "label": "Facility code",
         "hint": "As printed on the stock card, for example KSM-014.", "required": "yes"},
        {"type": "text", "name": "counted_by", "label": "Name of the person counting", "required": "yes"},
        {"type": "begin group", "name": "malaria", "label": "Malaria commodities", "appearance": "field-list"},
        {"type": "integer", "name": "al_packs", "label": "Artemether-lumefantrine 20/120 mg: blister packs on hand",
         **_NOT_NEGATIVE},
        {"type": "integer", "name": "rdt_tests", "label": "Malaria rapid diagnostic tests on hand", **_NOT_NEGATIVE},
        {"type": "integer", "name": "rdt_used", "label": "Rapid diagnostic tests used since the last count",
         "appearance": "numbers", **_NOT_NEGATIVE},
        {"type": "end group"},
        {"type": "begin group", "name": "maternal", "label": "Maternal health", "appearance": "field-list"},
        {"type": "integer", "name": "oxytocin", "label": "Oxytocin 10 IU ampoules on hand", **_NOT_NEGATIVE},
        {"type": "note", "name": "oxytocin_out", "relevant": "${oxytocin} = 0",
         "label": "Oxytocin is out of stock: report it to the district pharmacist today."},
        {"type": "decimal", "name": "ifa_tins", "label": "Iron and folic acid tablets on hand (tins of 1000)",
         "hint": "Count an opened tin as a part, e.g. 2.5.", **_NOT_NEGATIVE},
        {"type": "end group"},
        {"type": "time", "name": "count_finished", "label": "Time the count was finished"},
        {"type": "text", "name": "remarks", "label": "Remarks", "appearance": "multiline"},
        {"type": "note", "name": "done", "label": "Save and send this form before you lock the store."},
    ),
    "choices": None,
    "settings": [
        ["form_id", "form_title", "version", "instance_name"],
        ["clinic_stock_count", "Monthly Clinic Stock Count", "2023-09", "concat(${facility_code}, '-', ${count_date})"],
    ],
    "expect": "loads",
}


# --- 9. Training attendance: choices without labels, ignored columns (media::image, read_only, guidance_hint) ---

ATTENDANCE_HEADER = ["type", "name", "label", "hint", "guidance_hint", "required", "relevant", "appearance",
                     "read_only", "media::image"]

TRAINING_ATTENDANCE = {
    "survey": _sheet(
        ATTENDANCE_HEADER,
        {"type": "note", "name": "welcome", "media::image": "training_banner.png", "read_only": "yes",
         "label": "Complete one form for each participant at the end of each training day."},
        {"type": "date", "name": "session_date", "label": "Training day", "required": "yes"},
        {"type": "text", "name": "participant_name", "label": "Participant's full name", "required": "yes"},
        {"type": "select_one role", "name": "role", "label": "Participant's role", "appearance": "minimal",
         "required": "yes"},
        {"type": "select_one district", "name": "district", "label": "District where the participant works",
         "appearance": "minimal"},
        {"type": "select_one yes_no", "name": "attended_full", "label": "Did the participant attend the whole day?",
         "appearance": "horizontal", "required": "yes"},
        {"type": "text", "name": "left_early_reason", "label": "Why did the participant leave early or arrive late?",
         "relevant": "${attended_full} = 'no'"},
        {"type": "select_one rating", "name": "content_rating",
         "label": "How would you rate today's content? (1 = poor, 5 = excellent)", "appearance": "horizontal-compact",
         "guidance_hint": "Read the scale aloud if the participant cannot see the screen."},
        {"type": "select_one rating", "name": "facilitator_rating",
         "label": "How would you rate the facilitators? (1 = poor, 5 = excellent)", "appearance": "likert"},
        {"type": "select_multiple topics", "name": "topics_more", "label": "Which topics need more time?",
         "appearance": "minimal", "relevant": "${content_rating} <= 3"},
        {"type": "text", "name": "comments", "label": "Any other comments", "appearance": "multiline",
         "read_only": "no"},
    ),
    "choices": _choices(
        ["list_name", "name", "label", "media::image"],
        ("role", "nurse", "Nurse or midwife", ""), ("role", "clinical_officer", "Clinical officer", ""),
        ("role", "chw", "Community health worker", ""), ("role", "records", "Health records officer", ""),
        ("district", "kisumu_central", "Kisumu Central", "kisumu.png"), ("district", "nyando", "Nyando", "nyando.png"),
        ("district", "seme", "Seme", "seme.png"),
        ("yes_no", "yes", "", ""), ("yes_no", "no", "", ""),
        ("rating", "1", "", ""), ("rating", "2", "", ""), ("rating", "3", "", ""), ("rating", "4", "", ""),
        ("rating", "5", "", ""),
        ("topics", "dosing", "Dosing charts", ""), ("topics", "referral", "Referral forms", ""),
        ("topics", "reporting", "Monthly reporting", ""), ("topics", "counselling", "Counselling caregivers", ""),
    ),
    "settings": [
        ["form_id", "form_title", "version", "instance_name", "submission_url"],
        ["training_attendance", "District Training: Attendance and Evaluation", "2024-05-02",
         "concat(${participant_name}, ' - ', ${session_date})", "https://central.example.org/v1/key/submission"],
    ],
    "expect": "loads",
}


# --- 10. An old ODK Build-era form: caption, relevance, constraining_message, list name, 'select one', int ------

MEALS_HEADER = ["type", "name", "caption", "hint", "required", "relevance", "constraint", "constraining_message"]

SCHOOL_MEALS_LEGACY = {
    "survey": _sheet(
        MEALS_HEADER,
        {"type": "note", "name": "intro", "caption": "School feeding programme: daily return, filled in by the head "
                                                     "teacher or the school meals focal teacher."},
        {"type": "date", "name": "meal_date", "caption": "Date", "required": "yes"},
        {"type": "int", "name": "enrolled", "caption": "Number of pupils present today", "required": "yes",
         "constraint": ". >= 0 and . <= 3000", "constraining_message": "At most 3000 pupils."},
        {"type": "select one yes_no", "name": "meal_served", "caption": "Was a hot meal served today?",
         "required": "yes"},
        {"type": "int", "name": "fed", "caption": "Number of pupils who received a meal",
         "relevance": "${meal_served} = 'yes'", "constraint": ". >= 0 and . <= ${enrolled}",
         "constraining_message": "Cannot be more than the pupils present."},
        {"type": "select all that apply foods", "name": "foods_served", "caption": "What was served?",
         "relevance": "${meal_served} = 'yes'"},
        {"type": "select one no_meal_reason", "name": "no_meal_reason", "caption": "Why was no meal served?",
         "relevance": "${meal_served} = 'no'"},
        {"type": "begin_group", "name": "store", "caption": "Store room"},
        {"type": "int", "name": "maize_kg", "caption": "Maize flour in the store (kg)", "constraint": ". >= 0"},
        {"type": "int", "name": "beans_kg", "caption": "Beans in the store (kg)", "constraint": ". >= 0"},
        {"type": "select one yes_no", "name": "store_ok", "caption": "Is the store room clean, dry and locked?"},
        {"type": "end_group"},
        {"type": "string", "name": "remarks", "caption": "Remarks"},
    ),
    "choices": _choices(
        ["list name", "name", "caption"],
        ("yes_no", "yes", "Yes"), ("yes_no", "no", "No"),
        ("foods", "maize", "Maize (ugali or porridge)"), ("foods", "beans", "Beans or pulses"),
        ("foods", "vegetables", "Vegetables"), ("foods", "fruit", "Fruit"), ("foods", "milk", "Milk"),
        ("no_meal_reason", "no_food", "No food in store"), ("no_meal_reason", "no_fuel", "No firewood or fuel"),
        ("no_meal_reason", "no_cook", "Cook absent"), ("no_meal_reason", "no_water", "No water"),
    ),
    "settings": None,
    "expect": "loads",
}


# --- 11. A community health worker's home visit in English and Portuguese: notes everywhere --------------------

VISIT_HEADER = ["type", "name", "label::English (en)", "label::Português (pt)", "required",
                "required_message::English (en)", "required_message::Português (pt)", "relevant", "constraint",
                "constraint_message::English (en)", "constraint_message::Português (pt)", "appearance"]
_DANGER = "count-selected(${danger_signs}) >= 1 and not(selected(${danger_signs}, 'none'))"

CHW_HOME_VISIT = {
    "survey": _sheet(
        VISIT_HEADER,
        {"type": "begin group", "name": "visit", "label": ("Visit", "Visita"), "appearance": "field-list"},
        {"type": "note", "name": "visit_intro",
         "label": ("Fill in this form at the end of every household visit.",
                   "Preencha este formulário no fim de cada visita ao agregado familiar.")},
        {"type": "note", "name": "emergency_first",
         "label": ("In an emergency, refer the patient first and fill in the form afterwards.",
                   "Numa emergência, refira primeiro o doente e preencha o formulário depois.")},
        {"type": "dateTime", "name": "visit_start", "label": ("When did the visit start?", "Quando começou a visita?"),
         "required": "yes",
         "required_message": ("Enter the date and time the visit started.", "Indique a data e a hora do início.")},
        {"type": "time", "name": "visit_end", "label": ("What time did the visit end?", "A que horas terminou a visita?")},
        {"type": "integer", "name": "members_seen",
         "label": ("How many household members did you see?", "Quantos membros do agregado viu?"),
         "constraint": ". >= 1 and . <= 30",
         "constraint_message": ("Enter a number from 1 to 30.", "Indique um número de 1 a 30.")},
        {"type": "end group"},
        {"type": "begin group", "name": "danger", "label": ("Danger signs", "Sinais de perigo"),
         "appearance": "field-list"},
        {"type": "note", "name": "danger_intro",
         "label": ("Ask about every danger sign, even if the family does not mention it.",
                   "Pergunte por cada sinal de perigo, mesmo que a família não o mencione.")},
        {"type": "select_multiple danger_sign", "name": "danger_signs",
         "label": ("Does anyone in the household have any of these danger signs?",
                   "Alguém no agregado tem algum destes sinais de perigo?"), "required": "yes",
         "constraint": "not(selected(., 'none') and count-selected(.) > 1)",
         "constraint_message": ("'None' cannot be chosen with a danger sign.",
                                "'Nenhum' não pode ser escolhido com um sinal de perigo.")},
        {"type": "note", "name": "refer_now", "relevant": _DANGER,
         "label": ("REFER NOW: give the referral slip and help the family get to the health facility.",
                   "REFIRA JÁ: entregue a guia de referência e ajude a família a chegar à unidade sanitária.")},
        {"type": "begin group", "name": "referral", "label": ("Referral", "Referência"), "relevant": _DANGER},
        {"type": "select_one yes_no", "name": "referred",
         "label": ("Did you refer the patient to the health facility?", "Referiu o doente à unidade sanitária?"),
         "required": "yes", "required_message": ("Please answer.", "Por favor, responda.")},
        {"type": "note", "name": "accompany", "relevant": "count-selected(${danger_signs}) >= 2",
         "label": ("Several danger signs: go with the patient if you can.",
                   "Vários sinais de perigo: acompanhe o doente se puder.")},
        {"type": "end group"},
        {"type": "end group"},
        {"type": "begin group", "name": "advice", "label": ("Advice given", "Aconselhamento"),
         "appearance": "field-list"},
        {"type": "select_multiple advice_topic", "name": "advice_topics",
         "label": ("Which topics did you discuss with the family?", "Que temas discutiu com a família?")},
        {"type": "note", "name": "net_reminder", "relevant": "selected(${advice_topics}, 'bednets')",
         "label": ("Remind the family to sleep under the net every night, all year round.",
                   "Lembre a família de dormir debaixo da rede todas as noites, durante todo o ano.")},
        {"type": "end group"},
        {"type": "begin group", "name": "before_leaving", "label": ("Before you leave", "Antes de sair"),
         "appearance": "field-list"},
        {"type": "note", "name": "next_visit",
         "label": ("Tell the family when you will visit again.", "Diga à família quando voltará a visitá-la.")},
        {"type": "note", "name": "wash_hands",
         "label": ("Wash your hands before you go to the next household.",
                   "Lave as mãos antes de ir ao próximo agregado.")},
        {"type": "end group"},
        {"type": "note", "name": "thanks",
         "label": ("Thank you. Send the form when you have network.", "Obrigado. Envie o formulário quando tiver rede.")},
    ),
    "choices": _choices(
        ["list_name", "name", "label::English (en)", "label::Português (pt)"],
        ("yes_no", "yes", "Yes", "Sim"), ("yes_no", "no", "No", "Não"),
        ("danger_sign", "convulsions", "Convulsions", "Convulsões"),
        ("danger_sign", "cannot_drink", "Unable to drink or breastfeed", "Não consegue beber nem mamar"),
        ("danger_sign", "vomits_all", "Vomits everything", "Vomita tudo"),
        ("danger_sign", "fast_breathing", "Fast or difficult breathing", "Respiração rápida ou difícil"),
        ("danger_sign", "bleeding", "Bleeding in pregnancy", "Hemorragia na gravidez"),
        ("danger_sign", "none", "None", "Nenhum"),
        ("advice_topic", "bednets", "Mosquito nets", "Redes mosquiteiras"),
        ("advice_topic", "handwashing", "Handwashing", "Lavagem das mãos"),
        ("advice_topic", "breastfeeding", "Breastfeeding", "Aleitamento materno"),
        ("advice_topic", "vaccination", "Vaccination", "Vacinação"),
        ("advice_topic", "family_planning", "Family planning", "Planeamento familiar"),
    ),
    "settings": [
        ["form_id", "form_title", "default_language", "version"],
        ["chw_home_visit", "CHW Home Visit", "English (en)", "202406"],
    ],
    "expect": "loads",
}


# --- 12. A school inspection for Enketo's grid theme (theme-grid, not pages): w-appearances, one long page ------

INSPECTION_HEADER = ["type", "name", "label", "hint", "required", "relevant", "constraint", "constraint_message",
                     "appearance"]

SCHOOL_INSPECTION_GRID = {
    "survey": _sheet(
        INSPECTION_HEADER,
        {"type": "start", "name": "start"},
        {"type": "end", "name": "end"},
        {"type": "begin group", "name": "school", "label": "School", "appearance": "w4"},
        {"type": "text", "name": "school_name", "label": "School name", "required": "yes", "appearance": "w2"},
        {"type": "text", "name": "emis_code", "label": "EMIS code", "hint": "Eight digits, on the school's sign.",
         "appearance": "w1"},
        {"type": "date", "name": "visit_date", "label": "Date of visit", "required": "yes", "appearance": "w1"},
        {"type": "select_one ownership", "name": "ownership", "label": "Ownership", "appearance": "w2 minimal"},
        {"type": "end group"},
        {"type": "begin group", "name": "enrolment", "label": "Enrolment and staff", "appearance": "w4"},
        {"type": "integer", "name": "girls", "label": "Girls enrolled", "constraint": ". >= 0 and . <= 5000",
         "appearance": "w1"},
        {"type": "integer", "name": "boys", "label": "Boys enrolled", "constraint": ". >= 0 and . <= 5000",
         "appearance": "w1"},
        {"type": "integer", "name": "teachers", "label": "Teachers on the payroll", "constraint": ". >= 0 and . <= 300",
         "appearance": "w1"},
        {"type": "integer", "name": "teachers_present", "label": "Teachers present today",
         "constraint": ". >= 0 and . <= ${teachers}",
         "constraint_message": "Cannot be more than the teachers on the payroll.", "appearance": "w1"},
        {"type": "end group"},
        {"type": "begin group", "name": "facilities", "label": "Facilities", "appearance": "w4"},
        {"type": "select_one yes_no", "name": "has_water", "label": "Is there drinking water at the school today?",
         "appearance": "w2 horizontal"},
        {"type": "select_one yes_no", "name": "has_latrines", "label": "Are there working latrines?",
         "appearance": "w2 horizontal"},
        {"type": "integer", "name": "latrines_girls", "label": "Working latrines for girls only",
         "relevant": "${has_latrines} = 'yes'", "constraint": ". >= 0 and . <= 100", "appearance": "w2"},
        {"type": "select_multiple repairs", "name": "repairs", "label": "What needs repair?",
         "hint": "Select all that apply.", "appearance": "w4 columns"},
        {"type": "text", "name": "repairs_urgent", "label": "Which repair is the most urgent, and why?",
         "relevant": "count-selected(${repairs}) >= 2", "appearance": "w4 multiline"},
        {"type": "end group"},
    ),
    "choices": _choices(
        ["list_name", "name", "label"],
        ("ownership", "public", "Public"), ("ownership", "community", "Community"),
        ("ownership", "faith", "Faith-based"), ("ownership", "private", "Private"),
        ("yes_no", "yes", "Yes"), ("yes_no", "no", "No"),
        ("repairs", "roof", "Roof"), ("repairs", "walls", "Walls"), ("repairs", "windows", "Windows or doors"),
        ("repairs", "desks", "Desks and benches"), ("repairs", "latrines", "Latrines"),
        ("repairs", "water", "Water point"),
    ),
    "settings": [
        ["form_id", "form_title", "style", "version"],
        ["school_inspection", "District School Inspection", "theme-grid", "2"],
    ],
    "expect": "loads",
}


# --- 13. A classroom observation checklist: choices written without labels (their names are shown), a grid of
#         them, guidance hints, media and read_only columns --------------------------------------------------------

OBSERVATION_HEADER = ["type", "name", "label", "hint", "guidance_hint", "required", "relevant", "constraint",
                      "constraint_message", "appearance", "read_only", "media::image"]

CLASSROOM_OBSERVATION = {
    "survey": _sheet(
        OBSERVATION_HEADER,
        {"type": "start", "name": "start"},
        {"type": "end", "name": "end"},
        {"type": "note", "name": "intro", "media::image": "observation_header.jpg", "read_only": "yes",
         "label": "Observe the lesson for at least 30 minutes before you fill in this checklist. Sit at the back "
                  "and do not interrupt."},
        {"type": "begin group", "name": "lesson", "label": "The lesson", "appearance": "field-list"},
        {"type": "text", "name": "teacher_code", "label": "Teacher code", "hint": "From the school's staff list.",
         "required": "yes"},
        {"type": "select_one grade", "name": "grade", "label": "Grade observed", "appearance": "horizontal",
         "required": "yes"},
        {"type": "integer", "name": "pupils_present", "label": "Pupils present", "constraint": ". >= 0 and . <= 150",
         "constraint_message": "Enter a number from 0 to 150."},
        {"type": "time", "name": "lesson_start", "label": "Time the lesson started"},
        {"type": "end group"},
        {"type": "begin group", "name": "practices", "label": "Did the teacher do the following?",
         "appearance": "table-list"},
        {"type": "select_one ynna", "name": "objective", "label": "Shared the lesson objective with the class",
         "required": "yes"},
        {"type": "select_one ynna", "name": "checked_understanding",
         "label": "Checked pupils' understanding during the lesson", "required": "yes",
         "guidance_hint": "Look for questions to the whole class, not only to the front row."},
        {"type": "select_one ynna", "name": "praised", "label": "Praised pupils' effort, not only right answers"},
        {"type": "select_one ynna", "name": "girls_boys", "label": "Called on girls and boys about equally"},
        {"type": "end group"},
        {"type": "begin group", "name": "overall", "label": "Overall", "appearance": "field-list"},
        {"type": "select_one score", "name": "overall_score",
         "label": "Overall score for the lesson (1 = needs a lot of support, 4 = excellent)", "appearance": "likert",
         "required": "yes"},
        {"type": "text", "name": "strength", "label": "One thing the teacher did well", "required": "yes",
         "appearance": "multiline"},
        {"type": "text", "name": "next_step", "label": "One thing to work on before the next visit",
         "relevant": "${overall_score} = '1' or ${overall_score} = '2' or ${objective} = 'No'",
         "appearance": "multiline"},
        {"type": "select_one yn", "name": "feedback_given",
         "label": "Did you discuss this feedback with the teacher after the lesson?", "read_only": "no"},
        {"type": "end group"},
    ),
    "choices": _choices(
        ["list_name", "name", "label", "media::image"],
        ("grade", "1", "", ""), ("grade", "2", "", ""), ("grade", "3", "", ""), ("grade", "4", "", ""),
        ("grade", "5", "", ""), ("grade", "6", "", ""),
        ("ynna", "Yes", "", "tick.png"), ("ynna", "No", "", "cross.png"), ("ynna", "NA", "", ""),
        ("score", "1", "", ""), ("score", "2", "", ""), ("score", "3", "", ""), ("score", "4", "", ""),
        ("yn", "Yes", "", ""), ("yn", "No", "", ""),
    ),
    "settings": [["form_id", "form_title", "version"], ["classroom_observation_tool", "Classroom Observation", "5"]],
    "expect": "loads",
}


# --- Refused: each uses one feature of docs/xlsform.md's refusal table -----------------------------------------

# A household roster: one repeat per member, as many as the household's size.
HOUSEHOLD_ROSTER_REPEAT = {
    "survey": _sheet(
        ["type", "name", "label", "hint", "required", "relevant", "constraint", "repeat_count"],
        {"type": "start", "name": "start"},
        {"type": "text", "name": "hh_head", "label": "Name of the head of household", "required": "yes"},
        {"type": "integer", "name": "hh_size", "label": "How many people live in this household?",
         "constraint": ". >= 1 and . <= 30", "required": "yes"},
        {"type": "begin repeat", "name": "members", "label": "Household member", "repeat_count": "${hh_size}"},
        {"type": "text", "name": "member_name", "label": "First name of the household member", "required": "yes"},
        {"type": "integer", "name": "member_age", "label": "How old is ${member_name}?",
         "hint": "Completed years; 0 for a baby.", "constraint": ". >= 0 and . <= 120"},
        {"type": "select_one sex", "name": "member_sex", "label": "Is ${member_name} male or female?"},
        {"type": "select_one yes_no", "name": "member_school", "label": "Is ${member_name} attending school this year?",
         "relevant": "${member_age} >= 5 and ${member_age} <= 18"},
        {"type": "end repeat"},
        {"type": "note", "name": "thanks", "label": "Thank the household. The roster is complete."},
    ),
    "choices": _choices(["list_name", "name", "label"], ("sex", "female", "Female"), ("sex", "male", "Male"),
                        ("yes_no", "yes", "Yes"), ("yes_no", "no", "No")),
    "settings": [["form_id", "form_title"], ["household_roster", "Household Roster"]],
    "expect": "refused: repeats",
}

# A health facility assessment in English and French that records the facility's location.
FACILITY_GPS = {
    "survey": _sheet(
        ["type", "name", "label::English (en)", "label::Français (fr)", "hint::English (en)", "hint::Français (fr)",
         "required", "appearance"],
        {"type": "begin group", "name": "facility", "label": ("Health facility", "Formation sanitaire"),
         "appearance": "field-list"},
        {"type": "text", "name": "facility_name", "label": ("Name of the facility", "Nom de la formation sanitaire"),
         "required": "yes"},
        {"type": "select_one facility_type", "name": "facility_type", "label": ("Type of facility", "Type de structure")},
        {"type": "geopoint", "name": "location", "label": ("Record the location at the main entrance",
                                                           "Enregistrez la position à l'entrée principale"),
         "hint": ("Wait until the accuracy is below 10 m.", "Attendez que la précision soit inférieure à 10 m."),
         "appearance": "maps"},
        {"type": "end group"},
        {"type": "begin group", "name": "services", "label": ("Services", "Services"), "appearance": "field-list"},
        {"type": "select_multiple service", "name": "services_offered",
         "label": ("Which services are offered every day?", "Quels services sont offerts tous les jours ?")},
        {"type": "integer", "name": "beds", "label": ("Number of inpatient beds", "Nombre de lits d'hospitalisation")},
        {"type": "end group"},
    ),
    "choices": _choices(
        ["list_name", "name", "label::English (en)", "label::Français (fr)"],
        ("facility_type", "hospital", "Hospital", "Hôpital"), ("facility_type", "health_centre", "Health centre",
                                                               "Centre de santé"),
        ("facility_type", "post", "Health post", "Poste de santé"),
        ("service", "opd", "Outpatient consultations", "Consultations externes"),
        ("service", "anc", "Antenatal care", "Consultations prénatales"),
        ("service", "delivery", "Deliveries", "Accouchements"), ("service", "epi", "Vaccination", "Vaccination"),
    ),
    "settings": [["form_id", "form_title", "default_language"],
                 ["facility_assessment", "Health Facility Assessment", "English (en)"]],
    "expect": "refused: location capture",
}

# An ODK Central registration form that creates an entity for each household (an entities sheet, save_to).
HOUSEHOLD_REGISTRATION_ENTITIES = {
    "survey": _sheet(
        ["type", "name", "label", "required", "save_to", "constraint"],
        {"type": "text", "name": "head_name", "label": "Full name of the head of household", "required": "yes",
         "save_to": "head_name"},
        {"type": "text", "name": "village", "label": "Village", "required": "yes", "save_to": "village"},
        {"type": "integer", "name": "members", "label": "Number of household members", "save_to": "members",
         "constraint": ". >= 1 and . <= 40"},
        {"type": "select_one yes_no", "name": "under_five", "label": "Is there a child under five in the household?",
         "save_to": "under_five"},
    ),
    "choices": _choices(["list_name", "name", "label"], ("yes_no", "yes", "Yes"), ("yes_no", "no", "No")),
    "settings": [["form_id", "form_title", "version"], ["household_registration", "Household Registration", "1"]],
    "entities": [["list_name", "label"], ["households", "concat(${head_name}, ' - ', ${village})"]],
    "expect": "refused: entities",
}

# Region, then district filtered by region: a cascading select.
DISTRICT_CASCADE = {
    "survey": _sheet(
        ["type", "name", "label", "required", "choice_filter", "appearance"],
        {"type": "select_one region", "name": "region", "label": "Region", "required": "yes", "appearance": "minimal"},
        {"type": "select_one district", "name": "district", "label": "District", "required": "yes",
         "choice_filter": "region=${region}", "appearance": "minimal"},
        {"type": "text", "name": "school", "label": "School name", "required": "yes"},
        {"type": "integer", "name": "classrooms", "label": "Number of classrooms in use"},
    ),
    "choices": _choices(
        ["list_name", "name", "label", "region"],
        ("region", "north", "Northern", ""), ("region", "central", "Central", ""), ("region", "south", "Southern", ""),
        ("district", "mzimba", "Mzimba", "north"), ("district", "karonga", "Karonga", "north"),
        ("district", "lilongwe", "Lilongwe", "central"), ("district", "dedza", "Dedza", "central"),
        ("district", "blantyre", "Blantyre", "south"), ("district", "zomba", "Zomba", "south"),
    ),
    "settings": [["form_id", "form_title"], ["school_census_district", "School Census"]],
    "expect": "loads",
}

# A school's name looked up from its code in a CSV sent with the form (pull_data in a calculate row).
SCHOOL_LOOKUP_PULLDATA = {
    "survey": _sheet(
        ["type", "name", "label", "required", "calculation"],
        {"type": "integer", "name": "school_code", "label": "School code (from the list you were given)",
         "required": "yes"},
        {"type": "calculate", "name": "school_name",
         "calculation": "pull_data('schools', 'school_name', 'school_code', ${school_code})"},
        {"type": "note", "name": "confirm_school", "label": "You are at ${school_name}. Go back if this is wrong."},
        {"type": "integer", "name": "pupils_present", "label": "Pupils present in the Grade 3 classroom"},
    ),
    "choices": None,
    "settings": [["form_id", "form_title"], ["classroom_observation", "Classroom Observation"]],
    "expect": "refused: external data",
}


CORPUS = {
    "household_collect.xlsx": HOUSEHOLD_COLLECT,
    "school_climate_enketo.xlsx": SCHOOL_CLIMATE_ENKETO,
    "clinic_visit_fr.xlsx": CLINIC_VISIT_FR,
    "parent_survey_zh.xlsx": PARENT_SURVEY_ZH,
    "teacher_feedback_sw.xlsx": TEACHER_FEEDBACK_SW,
    "reading_assessment_ar.xlsx": READING_ASSESSMENT_AR,
    "youth_wellbeing_kobo.xlsx": YOUTH_WELLBEING_KOBO,
    "clinic_stock_count.xlsx": CLINIC_STOCK_COUNT,
    "training_attendance.xlsx": TRAINING_ATTENDANCE,
    "school_meals_legacy.xlsx": SCHOOL_MEALS_LEGACY,
    "chw_home_visit.xlsx": CHW_HOME_VISIT,
    "school_inspection_grid.xlsx": SCHOOL_INSPECTION_GRID,
    "classroom_observation.xlsx": CLASSROOM_OBSERVATION,
    "household_roster_repeat.xlsx": HOUSEHOLD_ROSTER_REPEAT,
    "facility_gps.xlsx": FACILITY_GPS,
    "household_registration_entities.xlsx": HOUSEHOLD_REGISTRATION_ENTITIES,
    "district_cascade.xlsx": DISTRICT_CASCADE,
    "school_lookup_pulldata.xlsx": SCHOOL_LOOKUP_PULLDATA,
}

SHEETS = ("survey", "choices", "settings", "entities")


def write_form(directory, name) -> Path:
    """Write the form ``name`` of CORPUS in ``directory`` with openpyxl and return its path.

    Its sheets are survey, choices and settings (and entities, for the form that has one), each left out when
    None; an empty cell is left empty, as a spreadsheet leaves it.
    """
    form = CORPUS[name]
    book = openpyxl.Workbook()
    book.remove(book.active)
    for sheet_name in SHEETS:
        rows = form.get(sheet_name)
        if rows is None:
            continue
        sheet = book.create_sheet(sheet_name)
        for values in rows:
            sheet.append([None if value == "" else value for value in values])
    path = Path(directory) / name
    book.save(path)
    return path
