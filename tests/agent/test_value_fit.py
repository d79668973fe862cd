"""Which run of the question's words each text argument takes (agent/value_fit.py): pure functions over
given similarities, so each rule is seen alone."""

from __future__ import annotations

from edgehost.agent.value_fit import Slot, assign_values, fit_adjustment


def test_a_run_holding_the_arguments_own_lower_case_word_is_no_value_of_it() -> None:
    slot = Slot.of("player_name", "The name of the player")
    question = "Find the world rank of a Tennis player, Serena Williams."
    assert fit_adjustment(question, "Tennis player", slot) is None
    assert fit_adjustment(question, "player", slot) is None
    # Capitalised, the slot's word is part of a name: "Premier League" is a league.
    assert (
        fit_adjustment("the schedule in Premier League", "Premier League", Slot.of("league", "")) is not None
    )


def test_a_whole_name_gains_and_a_cut_name_or_a_clause_loses() -> None:
    slot = Slot.of("location", "The city")
    question = "Find sculptures near Chicago that were made in Los Angeles"
    whole = fit_adjustment(question, "Los Angeles", slot)
    cut = fit_adjustment(question, "Angeles", slot)
    clause = fit_adjustment(question, "Chicago that were made", slot)
    assert whole is not None and cut is not None and clause is not None
    assert whole > 0 > cut and clause < 0


def test_a_name_after_in_or_at_is_a_place_not_the_name_an_argument_asks_for() -> None:
    """ "Also, Anna lives in Lyon.": Lyon is a little nearer by meaning to "the name of the entity" than
    Anna is, and the memory server was asked for an entity named Lyon."""
    question = "Also, Anna lives in Lyon."
    entity = Slot.of("entityName", "The name of the entity to add the observations to")
    anna, lyon = fit_adjustment(question, "Anna", entity), fit_adjustment(question, "Lyon", entity)
    assert anna is not None and lyon is not None and anna > lyon
    city = Slot.of("location", "The city")
    assert fit_adjustment(question, "Lyon", city) == fit_adjustment(question, "Anna", city)


def test_the_subject_of_a_statement_and_the_owner_of_an_entry_are_the_entity() -> None:
    entity = Slot.of("entityName", "The name of the entity to add the observations to")

    def adjusted(question: str, value: str) -> float:
        found = fit_adjustment(question, value, entity)
        assert found is not None
        return found

    # A statement's first word is its subject's name; a request's is its verb.
    assert adjusted("Tom now works at Siemens", "Tom") > adjusted("Tom now works at Siemens", "Siemens")
    assert adjusted("Kemal speaks Turkish", "Kemal") > 0
    # A negated or modal statement too: the observation to delete was once looked for on "jazz".
    negated = "Anna doesn't like jazz anymore, remove that"
    assert adjusted(negated, "Anna") > adjusted(negated, "jazz")
    assert adjusted("Tom won't be back before May", "Tom") > 0
    assert adjusted("Play Bohemian Rhapsody", "Play") < adjusted(
        "Play Bohemian Rhapsody", "Bohemian Rhapsody"
    )
    assert adjusted("Commit this to memory: my PIN", "Commit") == 0
    # Two names joined open a statement too ("link between them" was once taken for an entity).
    assert adjusted("Anna and Tom split up", "Anna") == adjusted("Anna and Tom split up", "Tom") > 0
    assert adjusted("Stop and think", "Stop") == 0
    # The owner of the entry, where the name stands twice, at its best place.
    question = "Marta plays the cello too, add that to Marta's entry"
    assert adjusted(question, "Marta") > adjusted("Marta plays the cello too", "Marta") > 0
    question = "Emma quit swimming, so take the Wednesday lessons off Emma's entry."
    assert adjusted(question, "Emma") > adjusted(question, "Wednesday")


def test_a_name_the_argument_asks_for_and_an_identifier_beside_its_word_gain_more() -> None:
    question = "the lyrics of Bohemian Rhapsody by Queen"
    artist = fit_adjustment(question, "Queen", Slot.of("artist_name", "The artist"))
    plain = fit_adjustment(question, "Queen", Slot.of("performer", "Who performed it"))
    assert artist is not None and plain is not None and artist > plain
    snp = Slot.of("snp_id", "The ID of the mutation")
    beside = fit_adjustment("mutation with ID rs6034464", "rs6034464", snp)
    alone = fit_adjustment("mutation rs6034464", "rs6034464", snp)
    assert beside is not None and alone is not None and beside > alone > 0


def test_a_quoted_example_of_the_description_is_a_value_not_a_word_of_the_slot() -> None:
    slot = Slot.of("subject", "The subject matter of the case, e.g., 'fraud'")
    assert fit_adjustment("a law case about fraud", "fraud", slot) is not None


def test_the_arguments_share_the_question_out_for_the_best_sum() -> None:
    # By meaning alone "Louvre Museum" is nearer to the location than "Paris" is; each run goes to one
    # argument, and the sum is best with the museum's name and the city apart.
    question = "Find out the open hours for the Louvre Museum in Paris."
    similarities = {
        "name": {"Louvre Museum": 0.45, "Paris": 0.2, "hours": 0.3},
        "location": {"Louvre Museum": 0.5, "Paris": 0.45, "hours": 0.1},
    }
    slots = {"name": Slot.of("name", "The name of the museum"), "location": Slot.of("location", "Where")}
    assigned = assign_values(question, similarities, slots)
    assert assigned["name"][0][0] == "Louvre Museum"
    assert assigned["location"][0][0] == "Paris"


def test_a_name_that_says_the_kind_the_argument_names_is_its_value() -> None:
    """BFCL simple_python_386, similarities as all-MiniLM-L6-v2 gives them: "Hotel Paradise" is nearer by
    meaning to "location: The location of the hotel" than "Las Vegas" is, and the best sum gave the
    hotel's name to the location and the city to hotel_name."""
    question = "Book a luxury room in Hotel Paradise, Las Vegas, with a city view for 3 days starting from May 12, 2022."
    similarities = {
        "hotel_name": {"Hotel Paradise": 0.652, "Las Vegas": 0.325},
        "location": {"Hotel Paradise": 0.661, "Las Vegas": 0.401},
    }
    slots = {
        "hotel_name": Slot.of("hotel_name", "The name of the hotel."),
        "location": Slot.of("location", "The location of the hotel."),
    }
    assigned = assign_values(question, similarities, slots)
    assert (assigned["hotel_name"][0][0], assigned["location"][0][0]) == ("Hotel Paradise", "Las Vegas")
    # The kind's word opens or closes the name: "Kansas City Chiefs" is a team, no city.
    city, game = Slot.of("city", "The city"), "Weather in Denver for the Kansas City Chiefs game"
    assert fit_adjustment(game, "Kansas City Chiefs", city) == fit_adjustment(game, "Denver", city)


def test_the_word_written_right_before_a_thing_is_the_kind_an_argument_asks_for() -> None:
    """BFCL simple_python_194 and multiple_93, similarities as all-MiniLM-L6-v2 gives them: "terms of
    erosion" stands near "slope" too and is nearer by meaning, and "New York" is a whole name."""
    question = "What are the top three plants suitable for a hill slope in terms of erosion prevention?"
    slope = Slot.of("slope_type", "The type of slope like steep, moderate etc.")
    similarities = {"slope_type": {"terms of erosion": 0.354, "hill": 0.252}}
    assert assign_values(question, similarities, {"slope_type": slope})["slope_type"][0][0] == "hill"
    booking = "Book a deluxe room for 2 nights at the Marriott hotel in New York"
    room = Slot.of("roomType", "Type of the room to be booked.")
    deluxe, city = fit_adjustment(booking, "deluxe", room), fit_adjustment(booking, "New York", room)
    assert deluxe is not None and city is not None and 0.164 + deluxe > 0.129 + city
    # Only a kind of one named thing: a bare "type" names none.
    assert Slot.of("type", "The type").kind_of is None and room.kind_of == "room"


def test_the_word_after_named_or_called_is_the_name_an_argument_asks_for() -> None:
    """ "make a new branch named experiment off main" created a branch "new": beside "branch" as much as
    "experiment" is, and a little nearer by meaning to "branch name"."""
    slot = Slot.of("branch_name", "")
    question = "make a new branch named experiment off main"
    similarities = {"branch_name": {"new": 0.06, "experiment": -0.011, "main": 0.165}}
    assert assign_values(question, similarities, {"branch_name": slot})["branch_name"][0][0] == "experiment"
    called = fit_adjustment("branch off main into a branch called test", "test", slot)
    off = fit_adjustment("branch off main into a branch called test", "main", slot)
    assert called is not None and off is not None and called > off
    # Only an argument that asks for a name: a search's text after "called" gains nothing.
    query = Slot.of("query", "The search query")
    assert fit_adjustment("notes called budget", "budget", query) == fit_adjustment(
        "notes about budget", "budget", query
    )


def test_the_verb_that_opens_a_request_before_to_is_no_value() -> None:
    """ "switch to develop" checked out a branch "switch": "develop" stands after "to", where a name is
    read as a place, and "switch" is a little nearer by meaning to "branch name"."""
    slot = Slot.of("branch_name", "")
    assert fit_adjustment("switch to develop", "switch", slot) is None
    assert fit_adjustment("Switch to the feature/login branch", "Switch", slot) is None
    similarities = {"branch_name": {"switch": 0.088, "develop": 0.086}}
    assert (
        assign_values("switch to develop", similarities, {"branch_name": slot})["branch_name"][0][0]
        == "develop"
    )
    # A first word that is not followed by "to" may still be a value, and so may a name before "to".
    assert fit_adjustment("develop is the branch I want", "develop", slot) is not None
    assert fit_adjustment("Paris to Lyon by car", "Paris", Slot.of("start", "Start city")) is not None


def test_the_questions_first_word_starts_no_name_and_any_script_is_a_value() -> None:
    slot = Slot.of("song_title", "The title of the song")
    question = "Play Bohemian Rhapsody by Queen"
    whole, with_verb = (
        fit_adjustment(question, span, slot) for span in ("Bohemian Rhapsody", "Play Bohemian Rhapsody")
    )
    assert whole is not None and with_verb is not None and whole > with_verb
    assert fit_adjustment("weather in Москва", "Москва", Slot.of("city", "The city")) is not None


def test_one_value_read_from_the_question_goes_to_one_argument() -> None:
    # Dates are offered in the argument's layout ("2024-01-01"), not as the question's words: two
    # arguments both nearest to it still share it out.
    question = "Book from January 1, 2024 to February 1, 2024"
    similarities = {
        "start_date": {"2024-01-01": 0.6, "2024-02-01": 0.5},
        "end_date": {"2024-01-01": 0.6, "2024-02-01": 0.55},
    }
    slots = {key: Slot.of(key, "") for key in similarities}
    assigned = assign_values(question, similarities, slots)
    assert assigned["start_date"][0][0] != assigned["end_date"][0][0]


def test_what_a_statement_is_about_names_the_entity_where_no_name_does() -> None:
    """ "Remember that my bike lock code is 4471" created an entity named "code"; "my desktop PC has 32 GB
    of RAM" one named "GB of RAM" (a run of capitalised words with "of" inside read as a name)."""
    entity = Slot.of("name", "The name of the entity")

    def adjusted(question: str, value: str) -> float:
        found = fit_adjustment(question, value, entity)
        assert found is not None
        return found

    code = "Remember that my bike lock code is 4471"
    assert adjusted(code, "bike lock code") > adjusted(code, "code") == adjusted(code, "lock code") == 0
    key = "the spare key is under the blue flowerpot"
    assert adjusted(key, "spare key") > adjusted(key, "blue flowerpot")
    # A name the statement writes is what it is about; the words around it are not.
    dog = "Remember that my dog Biscuit is five years old."
    assert adjusted(dog, "Biscuit") > adjusted(dog, "dog Biscuit")
    band = "My favourite band is Radiohead, remember that"
    assert adjusted(band, "Radiohead") > adjusted(band, "favourite band") == 0
    # An amount's unit starts no name.
    ram = "Please remember that my desktop PC has 32 GB of RAM"
    assert adjusted(ram, "PC") > 0 == adjusted(ram, "GB of RAM")
    # A description that says whose name the value is asks for a name as a key's word does.
    assert Slot.of("from", "The name of the entity where the relation starts").wants_name
    assert not Slot.of("query", "The search query to match against entity names").wants_name
