"""A follow-up's pronouns, read as what they stand for in the previous question (agent/references.py)."""

from __future__ import annotations

from edgehost.agent.references import resolved_references


def test_a_person_pronoun_stands_for_the_previous_questions_first_name() -> None:
    birthday = "My sister Anna's birthday is on 12 May, don't let me forget it"
    assert resolved_references("Also, she lives in Lyon.", [birthday]) == "Also, Anna lives in Lyon."
    dog = "Remember that my dog Biscuit is five years old."
    assert (
        resolved_references("Actually, forget the bit about his age.", [dog])
        == "Actually, forget the bit about Biscuit's age."
    )


def test_a_name_of_several_capitalised_words_is_taken_whole() -> None:
    """ "she" after "my dentist is Dr Ruiz" was read as "Dr": add_observations then failed, as the
    memory keeps no entity "Dr"."""
    later = "Also remember that she only works mornings."
    for dentist, name in (
        ("Dr Ruiz", "Dr Ruiz"),
        ("Dr. Ruiz", "Dr. Ruiz"),
        ("Uncle Rafi's dog", "Uncle Rafi"),
    ):
        earlier = [f"Remember that my dentist is {dentist}."]
        assert resolved_references(later, earlier) == f"Also remember that {name} only works mornings."
    # A full stop after a name that is not a title ends its sentence; a day's name is no part of it.
    assert resolved_references("what does he like?", ["I met Tom. Anna said hi"]) == "what does Tom like?"
    assert resolved_references("what does he like?", ["ok so Tom Monday"]) == "what does Tom like?"


def test_her_owns_what_follows_only_when_a_noun_follows() -> None:
    earlier = ["Remember that Maria likes green tea"]
    assert resolved_references("What is her phone number?", earlier) == "What is Maria's phone number?"
    assert resolved_references("tell her I said hi", earlier) == "tell Maria I said hi"
    assert resolved_references("remind her", earlier) == "remind Maria"
    assert resolved_references("ok, forget her completely", earlier) == "ok, forget Maria completely"
    assert resolved_references("call her back", earlier) == "call Maria back"


def test_a_sentences_first_word_a_month_or_a_day_is_no_name() -> None:
    assert resolved_references("where does she live?", ["Remember that on Monday in May I met Tom"]) == (
        "where does Tom live?"
    )
    # Nothing inside a sentence is capitalised: nothing to stand for.
    assert resolved_references("is he home?", ["Tomorrow is my day off."]) == "is he home?"


def test_a_sentences_first_word_is_the_name_when_it_begins_a_kept_one() -> None:
    """Seen in a walk-through: after "Lena is Max's sister, record that", "she" was read as Max, and
    Lena's new fact went to him. Where the memory keeps Lena, "Lena" is a name, not a sentence's
    first word; a kept name it only begins ("Len") is not Lena."""
    sister = "Lena is Max's sister, record that"
    assert resolved_references("She lives in Oslo.", [sister], ["Max", "Lena"]) == "Lena lives in Oslo."
    assert resolved_references("She lives in Oslo.", [sister], ["lena"]) == "Lena lives in Oslo."
    unknown = resolved_references("She lives in Oslo.", [sister])
    assert resolved_references("She lives in Oslo.", [sister], ["Len"]) == unknown != "Lena lives in Oslo."
    ruiz = "Dr Ruiz moved to the new clinic. Tell Anna."
    assert resolved_references("he only works mornings", [ruiz], ["Dr Ruiz"]) == "Dr Ruiz only works mornings"


def test_it_stands_for_the_only_file_the_previous_question_names() -> None:
    assert resolved_references("now delete it", ["Open notes.txt"]) == "now delete notes.txt"
    # Two files: which one "it" is cannot be told, so the follow-up is read as written.
    assert resolved_references("now delete it", ["compare a.txt and b.txt"]) == "now delete it"
    # The follow-up names its own file.
    assert resolved_references("copy it to c.txt", ["Open notes.txt"]) == "copy it to c.txt"


def test_it_as_the_subject_of_is_is_left_alone() -> None:
    for question in ("what time is it?", "it is too long", "it's fine", "is it done?"):
        assert resolved_references(question, ["Open notes.txt"]) == question


def test_a_question_without_an_earlier_one_or_a_pronoun_is_read_as_written() -> None:
    assert resolved_references("Also, she lives in Lyon.", []) == "Also, she lives in Lyon."
    assert resolved_references("and in Paris?", ["What time is it in Tokyo?"]) == "and in Paris?"
    # The follow-up already names the person.
    assert resolved_references("Anna said she moved", ["My sister Anna is 30"]) == "Anna said she moved"


def test_a_change_that_carries_on_acts_on_the_file_the_previous_question_named() -> None:
    dentist = "Now add a line saying the dentist is on Thursday"
    assert resolved_references(dentist, ["Open notes.txt"]) == f"{dentist} (notes.txt)"
    assert resolved_references("then delete the last line", ["show todo.md"]) == (
        "then delete the last line (todo.md)"
    )
    assert resolved_references("cross off the second item", ["read todo.md"]) == (
        "cross off the second item (todo.md)"
    )
    # Not carrying on, not a change, a file of its own, or two files before: read as written.
    for question, previous in (
        ("Add a line saying hello", "Open notes.txt"),
        ("Remember that Tom likes jazz", "Open notes.txt"),
        ("revert the last commit", "Open notes.txt"),
        ("now tell me a joke", "Open notes.txt"),
        ("now add a line to todo.md", "Open notes.txt"),
        ("now add a line", "compare a.txt and b.txt"),
        ("now add a line", "What time is it in Tokyo?"),
    ):
        assert resolved_references(question, [previous]) == question
