"""The instruction bank for the self-distillation corpus: many task kinds, many phrasings, many topics.

Every instruction is built from a task KIND (explain, list, email, recipe, dialogue, story, poem, how-to,
compare, summarise, advice, plan, ...), one of that kind's PHRASINGS, a SUBJECT from the kind's subject
list, and optionally a context sentence before it and a constraint after it (so lengths run from one
line to a short paragraph). A further share of instructions is written by the embedded model itself
from seed requests (``SELF_INSTRUCT``), which brings phrasings no template has.

The held-out split differs from training in BOTH topic and phrasing: every subject list, every kind's
phrasing list, the context and constraint lists and the self-instruct seeds are split once (a seeded
shuffle) into a training part and a held-out part, and held-out instructions are built only from
held-out parts. ``check_disjoint`` verifies it.
"""
from __future__ import annotations

import random
import re

TOPICS = [
    # science and nature
    "the water cycle", "photosynthesis", "black holes", "volcanoes", "the human heart", "climate change",
    "honey bees", "earthquakes", "the immune system", "dinosaurs", "the Amazon rainforest", "gravity",
    "octopuses", "plate tectonics", "antibiotics", "whales", "the speed of light", "the Moon", "Mars",
    "ocean tides", "glaciers", "deserts", "bird migration", "lightning", "the periodic table", "DNA",
    "evolution", "the human brain", "comets", "penguins", "elephants", "coral reefs", "mushrooms",
    "the nitrogen cycle", "magnets", "sound waves", "rainbows", "hurricanes", "fossils", "the solar wind",
    "butterflies", "sharks", "wolves", "tardigrades", "the ozone layer", "static electricity", "friction",
    "viruses", "bacteria", "the digestive system", "the skeleton", "muscles", "vision", "hearing",
    "the carbon cycle", "soil", "seeds", "tree rings", "caves", "geysers", "the northern lights",
    "exoplanets", "the Big Bang", "neutron stars", "atoms", "chemical reactions", "acids and bases",
    "crystals", "rust", "fire", "ice", "clouds", "fog", "tsunamis", "wetlands", "pollination",
    # history and society
    "the French Revolution", "the Roman Empire", "the printing press", "the Renaissance", "ancient Egypt",
    "the Industrial Revolution", "the Silk Road", "the Vikings", "the Cold War", "the Aztecs",
    "the invention of writing", "the Bronze Age", "the Ottoman Empire", "the moon landing", "medieval castles",
    "the history of money", "democracy", "human rights", "the United Nations", "elections", "taxes",
    "public libraries", "urbanization", "immigration", "the history of medicine", "the telegraph",
    "the steam engine", "the Great Depression", "the Olympic Games", "ancient Greece", "the Ming dynasty",
    "the abolition of slavery", "women's suffrage", "the Berlin Wall", "the Maya civilization",
    # technology
    "machine learning", "the internet", "electric cars", "solar panels", "cloud computing", "password security",
    "robots", "3D printing", "batteries", "smartphones", "GPS", "search engines", "encryption", "databases",
    "operating systems", "computer memory", "wind turbines", "nuclear power", "drones", "self-driving cars",
    "the Python programming language", "sorting algorithms", "recursion", "version control", "web browsers",
    "email", "social media", "video games", "virtual reality", "blockchain", "microchips", "fiber optics",
    "satellites", "radio", "television", "the camera", "refrigerators", "microwaves", "LED lights",
    "spreadsheets", "open source software", "cybersecurity", "artificial intelligence", "data compression",
    # everyday life, health, work, money
    "sleep", "coffee", "tea", "recycling", "friendship", "public speaking", "budgeting", "gardening",
    "meditation", "learning a language", "running a marathon", "writing a resume", "job interviews",
    "habits", "memory", "time management", "stress", "exercise", "healthy eating", "drinking water",
    "saving money", "credit cards", "renting an apartment", "moving to a new city", "working from home",
    "remote meetings", "teamwork", "leadership", "negotiation", "starting a small business", "customer service",
    "online shopping", "composting", "cooking for one", "first aid", "hand washing", "posture",
    "screen time", "reading habits", "keeping a journal", "volunteering", "house plants", "laundry",
    "cleaning a kitchen", "packing for a trip", "jet lag", "learning to swim", "riding a bicycle",
    "making friends as an adult", "parenting toddlers", "caring for an older relative", "retirement",
    "insurance", "interest rates", "inflation", "the stock market", "mortgages", "taxes on income",
    # arts, culture, hobbies, sports
    "jazz music", "the piano", "chess", "photography", "painting with watercolors", "poetry", "theater",
    "film editing", "comic books", "origami", "knitting", "pottery", "birdwatching", "hiking", "camping",
    "fishing", "skiing", "surfing", "soccer", "basketball", "tennis", "cricket", "yoga", "rock climbing",
    "board games", "magic tricks", "calligraphy", "classical music", "hip hop", "opera", "ballet",
    "museums", "architecture", "fashion", "tattoos", "street food", "festivals", "folk tales",
    # animals and places
    "cats", "dogs", "horses", "parrots", "goldfish", "ants", "bats", "owls", "frogs", "snakes", "kangaroos",
    "pandas", "camels", "dolphins", "bees in cities", "the Sahara", "Antarctica", "the Himalayas",
    "the Nile", "the Pacific Ocean", "Iceland", "Japan", "Brazil", "Kenya", "Canada", "Venice", "Paris",
    "the Grand Canyon", "islands", "mountains", "rivers", "forests", "lakes", "small towns", "big cities",
    # maths and thinking
    "prime numbers", "fractions", "the Pythagorean theorem", "probability", "statistics", "percentages",
    "negative numbers", "geometry", "algebra", "infinity", "logic puzzles", "critical thinking",
    "the scientific method", "maps", "time zones", "calendars", "measurement units", "graphs",
]

DISHES = [
    "pancakes", "vegetable soup", "fried rice", "tomato pasta", "banana bread", "guacamole", "omelette",
    "chicken curry", "lentil stew", "pizza dough", "chocolate chip cookies", "a green salad", "hummus",
    "mashed potatoes", "apple pie", "granola", "tacos", "a smoothie", "roast vegetables", "lemonade",
    "risotto", "bean chili", "garlic bread", "a fruit salad", "porridge", "dumplings", "pad thai",
    "shakshuka", "a sandwich for lunch", "carrot cake", "miso soup", "falafel", "iced tea", "flatbread",
    "stuffed peppers", "a vegetable stir fry", "scrambled eggs", "potato salad", "rice pudding", "salsa",
]

SITUATIONS = [  # for emails, letters and messages
    "asking my manager for a day off", "thanking a teacher", "inviting neighbours to a party",
    "complaining about a late delivery", "applying for a summer job", "asking a professor for an extension",
    "welcoming a new team member", "cancelling a meeting", "asking for a refund", "congratulating a friend on a new job",
    "apologising for missing a deadline", "requesting a reference letter", "introducing myself to a new client",
    "following up after an interview", "asking the landlord to fix the heating", "reminding the team about a deadline",
    "declining a wedding invitation politely", "asking a colleague for help with a report",
    "telling customers about new opening hours", "thanking volunteers after an event", "asking for feedback on a project",
    "announcing a school trip to parents", "reporting a broken streetlight to the city", "asking a doctor's office to reschedule",
    "inviting a speaker to a conference", "sharing meeting notes", "resigning from a job", "booking a hotel room",
]

GOALS = [  # for plans
    "learning to cook", "getting fit in three months", "reading more books", "saving for a holiday",
    "learning to play guitar", "preparing for an exam", "training for a 10k run", "learning Spanish",
    "organising a birthday party", "moving house", "starting a vegetable garden", "writing a novel",
    "cleaning out the garage", "learning to code", "sleeping better", "planning a weekend in the mountains",
    "hosting a dinner for eight people", "paying off a small debt", "building a morning routine",
    "starting a podcast", "a school science fair project", "a family road trip", "running a bake sale",
    "learning to draw", "decluttering a wardrobe", "preparing for a job interview", "a one-week trip to Italy",
]

PROBLEMS = [  # for advice
    "I can't fall asleep at night", "I procrastinate a lot", "my houseplants keep dying",
    "I feel nervous before presentations", "I spend too much money on food", "my team does not communicate well",
    "I have too many emails", "my neighbour is noisy", "I want to change careers", "I forget people's names",
    "my child does not want to read", "I feel lonely after moving", "I have trouble focusing when studying",
    "my laptop is very slow", "I never have time to exercise", "my code has too many bugs",
    "I argue with my roommate about cleaning", "I get distracted by my phone", "I am bad at saying no",
    "my dog barks at strangers", "I want to eat less sugar", "I am always late", "my garden has snails",
    "I have a long commute", "I want to make new friends", "I feel tired every afternoon",
]

SCENARIOS = [  # for dialogues
    "a customer and a barista", "a doctor and a patient", "two friends planning a trip", "a teacher and a student",
    "a job interviewer and a candidate", "a tourist asking for directions", "two colleagues fixing a bug",
    "a parent and a child at bedtime", "a librarian and a visitor", "a shop assistant and a customer returning shoes",
    "two astronauts on the Moon", "a detective and a witness", "a chef and a new cook", "a coach and a player",
    "a pilot and air traffic control", "neighbours meeting for the first time", "a robot and a cat",
    "a farmer and a journalist", "two scientists arguing about an experiment", "a waiter and a hungry family",
]

STORY_SEEDS = [  # for stories
    "a lost key", "a talking tree", "the last day of summer", "a robot who learns to paint", "a lighthouse keeper",
    "a dragon afraid of fire", "a train that never stops", "a secret garden", "a girl who can hear colours",
    "a message in a bottle", "the first snow", "a cat that runs a bakery", "an old map", "a broken clock",
    "a night in a museum", "a spaceship with no pilot", "a village without music", "a brave little boat",
    "two rivals who become friends", "a letter from the future", "a forgotten umbrella", "a shy ghost",
]

PAIRS = [  # for comparisons
    ("cats", "dogs"), ("tea", "coffee"), ("trains", "planes"), ("books", "films"), ("the Sun", "the Moon"),
    ("summer", "winter"), ("cities", "villages"), ("Python", "JavaScript"), ("renting", "buying a home"),
    ("walking", "cycling"), ("solar power", "wind power"), ("email", "phone calls"), ("paper books", "e-readers"),
    ("working from home", "working in an office"), ("rivers", "lakes"), ("frogs", "toads"),
    ("viruses", "bacteria"), ("weather", "climate"), ("chess", "checkers"), ("oil paint", "watercolor"),
    ("a laptop", "a desktop computer"), ("running", "swimming"), ("democracy", "monarchy"), ("crocodiles", "alligators"),
    ("baking", "frying"), ("stocks", "bonds"), ("mountains", "beaches"), ("violins", "cellos"),
]

TEXTS = [  # short passages to summarise or rewrite (plain, written for this corpus)
    "The library will close early on Friday because of a staff training day. Books due that day can be returned "
    "on Monday without a fine. The online catalogue and e-book service will stay available all weekend.",
    "Our team finished the new website three days ahead of schedule. Testing found a few small problems with "
    "the contact form, which were fixed on Tuesday. The site goes live next week after a final review.",
    "Bees visit flowers to collect nectar and pollen. As they move from flower to flower, they carry pollen with "
    "them, which helps plants make seeds. Without bees, many fruits and vegetables would be much harder to grow.",
    "The city plans to add fifty kilometres of bike lanes over the next two years. Officials say this will make "
    "cycling safer and reduce traffic. Some shop owners worry that fewer parking spaces will hurt their business.",
    "Regular sleep helps the brain store memories and clear away waste. Adults need about seven to nine hours a "
    "night. Screens before bed, caffeine late in the day and irregular schedules can all make sleep worse.",
    "The museum's new exhibition shows tools used by farmers over the last three hundred years. Visitors can try "
    "some of the tools themselves. The exhibition is free for children and runs until the end of March.",
    "Water boils at a lower temperature at high altitude because the air pressure is lower. This is why cooking "
    "pasta in the mountains can take longer. Pressure cookers solve the problem by raising the pressure inside.",
    "Last year the school garden produced more than two hundred kilograms of vegetables. Students planted, "
    "watered and harvested the crops, and the food was used in the school kitchen and shared with families.",
    "A good password is long, unique and hard to guess. Using a password manager makes it easier to keep a "
    "different password for every site. Turning on two-factor authentication adds another layer of protection.",
    "The meeting on Monday is moved to Wednesday at ten. Please bring your project updates and any questions "
    "about the budget. Lunch will be provided, so let me know about any dietary needs by Tuesday.",
    "Octopuses have three hearts and blue blood. They can change the colour and texture of their skin in a "
    "fraction of a second, and they are known for solving puzzles and escaping from tanks in aquariums.",
    "Our bakery is changing its opening hours. From next month we will open at seven instead of eight, and we "
    "will close on Sundays. We are also adding gluten-free bread to the menu after many requests.",
    "Glaciers form when snow builds up over many years and is pressed into ice. They move slowly downhill under "
    "their own weight. Many glaciers are shrinking today because summers are getting warmer.",
    "The new phone has a larger screen, a better camera and a battery that lasts about two days. Reviewers "
    "praised its speed but said it is heavy and more expensive than last year's model.",
    "Volunteers cleaned the beach on Saturday and collected more than three hundred bags of rubbish. Most of it "
    "was plastic. The organisers hope to hold a clean-up every month during the summer.",
    "Learning a musical instrument takes patience. Short daily practice works better than one long session a "
    "week. Recording yourself and listening back is a simple way to notice what needs work.",
]

SUBJECTS = {"topic": TOPICS, "dish": DISHES, "situation": SITUATIONS, "goal": GOALS, "problem": PROBLEMS,
            "scenario": SCENARIOS, "seed": STORY_SEEDS, "pair": PAIRS, "text": TEXTS}

# kind -> (subject list, phrasings). {x} is the subject; for pairs {a} and {b}.
KINDS: dict[str, tuple[str, list[str]]] = {
    "explain": ("topic", [
        "Explain {x} in simple terms.", "How does {x} work?", "Can you explain {x} to me like I'm new to it?",
        "What is {x}, and why does it matter?", "I never understood {x}. Could you explain it?",
        "Give me a clear explanation of {x}.", "Explain {x} to a ten-year-old.", "Break down {x} for a beginner.",
        "What's the basic idea behind {x}?", "Help me understand {x}."]),
    "facts": ("topic", [
        "Give me three interesting facts about {x}.", "Tell me something surprising about {x}.",
        "What are a few fun facts about {x}?", "Share five facts about {x} that most people don't know.",
        "What should everyone know about {x}?", "Teach me something new about {x}.",
        "List some little-known facts about {x}."]),
    "list": ("topic", [
        "List five key words related to {x} and explain each.", "Make a list of the main parts of {x}.",
        "What are the most important things to know about {x}? Use a numbered list.",
        "Give me a bullet-point overview of {x}.", "Name the key ideas of {x}, one per line.",
        "Write a checklist for someone learning about {x}.", "What are the main types of {x}?"]),
    "history": ("topic", [
        "Summarize the history of {x} in a few sentences.", "How did {x} develop over time?",
        "Give me a short timeline of {x}.", "Where did {x} come from?", "Tell me the story of how {x} began.",
        "What are the key moments in the history of {x}?"]),
    "pros_cons": ("topic", [
        "What are the pros and cons of {x}?", "Give me the advantages and disadvantages of {x}.",
        "Is {x} a good thing? Weigh both sides.", "What are the benefits and risks of {x}?",
        "Make a table of pros and cons for {x}.", "Argue for and against {x}."]),
    "misconceptions": ("topic", [
        "What are common misconceptions about {x}?", "What do people usually get wrong about {x}?",
        "Correct three myths about {x}.", "Which beliefs about {x} are false?",
        "Are there any popular myths about {x}? Explain why they are wrong."]),
    "quiz": ("topic", [
        "Give me a quiz question about {x} with the answer.", "Write three multiple-choice questions about {x}.",
        "Make a short quiz on {x} for a class.", "Ask me a tricky question about {x}, then give the answer.",
        "Create a true-or-false quiz about {x} with answers.", "Write a flashcard about {x}."]),
    "poem": ("topic", [
        "Write a short poem about {x}.", "Write a haiku about {x}.", "Write a limerick about {x}.",
        "Compose a four-line rhyming poem about {x}.", "Can you write a poem that celebrates {x}?",
        "Write a free-verse poem inspired by {x}.", "Write a sonnet about {x}."]),
    "tweet": ("topic", [
        "Write a tweet about {x}.", "Write a catchy slogan about {x}.", "Write an Instagram caption about {x}.",
        "Write a short social media post that gets people interested in {x}.",
        "Come up with a headline for an article about {x}.", "Write a one-sentence advertisement for {x}."]),
    "describe": ("topic", [
        "Describe {x} in one paragraph.", "Paint a picture of {x} with words.", "How would you describe {x} to a friend?",
        "Write a short description of {x} for an encyclopedia.", "Describe {x} using all five senses.",
        "What does {x} look like up close?"]),
    "future": ("topic", [
        "What is the future of {x}?", "How might {x} change in the next twenty years?",
        "What would happen if {x} did not exist?", "Imagine the world in 2100. What role does {x} play?",
        "Predict three changes to {x} in the coming decade.", "What problems will {x} face in the future?"]),
    "analogy": ("topic", [
        "Compare {x} with something from everyday life.", "Explain {x} using an analogy.",
        "What is {x} like? Use a metaphor.", "Describe {x} as if it were a kitchen.",
        "Explain {x} using a sports comparison."]),
    "teach": ("topic", [
        "What questions would a student ask about {x}? Answer one of them.", "Plan a short lesson about {x}.",
        "How would you teach {x} to a class of twelve-year-olds?", "Write a study guide for {x}.",
        "What are the three most important things to learn first about {x}?", "Give me a homework activity about {x}."]),
    "faq": ("topic", [
        "Write a short FAQ about {x}.", "What are the most frequently asked questions about {x}? Answer them.",
        "Answer the question: why is {x} important?", "I have a question: what is the point of {x}?",
        "Someone asks you what {x} is. What do you say?"]),
    "story": ("seed", [
        "Write a short story about {x}.", "Tell me a bedtime story about {x}.", "Write a fable about {x} with a moral.",
        "Write the opening paragraph of a novel about {x}.", "Write a 100-word story about {x}.",
        "Write a funny story involving {x}.", "Tell a spooky tale about {x}.", "Write a story for children about {x}."]),
    "topic_story": ("topic", [
        "Write a short story that involves {x}.", "Write a story where {x} saves the day.",
        "Tell a short adventure story that teaches something about {x}.", "Write a diary entry from someone obsessed with {x}."]),
    "recipe": ("dish", [
        "Give me a simple recipe for {x}.", "How do I make {x}?", "Write a recipe for {x} with a list of ingredients.",
        "What's the easiest way to cook {x} at home?", "Can you walk me through making {x} step by step?",
        "I want to make {x} tonight. What do I need?", "Share a quick recipe for {x} for beginners.",
        "How can I make a healthier version of {x}?"]),
    "email": ("situation", [
        "Write an email {x}.", "Draft a short, polite email {x}.", "Help me write a message {x}.",
        "Write a formal letter {x}.", "Can you write a friendly note {x}?", "I need a text message {x}. Keep it short.",
        "Compose a professional email {x}.", "Write two versions of an email {x}: one formal, one casual."]),
    "plan": ("goal", [
        "Make a plan for {x}.", "Create a weekly schedule for {x}.", "What steps should I take for {x}?",
        "Give me a 30-day plan for {x}.", "Help me organise {x}.", "Write a to-do list for {x}.",
        "I want to succeed at {x}. Where do I start?", "Outline a simple plan for {x}, week by week."]),
    "advice": ("problem", [
        "{x}. What should I do?", "Any advice? {x}.", "{x}. Can you give me some tips?",
        "My problem: {x}. How can I fix it?", "{x}. What would you suggest?", "Help! {x}.",
        "{x}. Give me three practical ideas.", "What can I do if {x_lower}?"]),
    "dialogue": ("scenario", [
        "Write a dialogue between {x}.", "Write a short conversation between {x}.", "Script a funny exchange between {x}.",
        "Imagine a conversation between {x}. Write it out.", "Write a scene for a play with {x}.",
        "Write a short chat between {x} that ends with a surprise."]),
    "compare": ("pair", [
        "Compare {a} and {b}.", "What is the difference between {a} and {b}?", "Which is better, {a} or {b}? Explain.",
        "How are {a} and {b} alike, and how are they different?", "Should I choose {a} or {b}?",
        "Make a comparison table of {a} and {b}.", "Explain {a} versus {b} for a beginner."]),
    "summarise": ("text", [
        "Summarise this text in one sentence: {x}", "Give me the main point of the following: {x}",
        "Make this shorter: {x}", "TL;DR: {x}", "Write three bullet points that capture this: {x}",
        "What is this text about? {x}", "Summarize for a busy reader: {x}"]),
    "rewrite": ("text", [
        "Rewrite this in a more friendly tone: {x}", "Make this text more formal: {x}", "Rewrite this for a child: {x}",
        "Turn this into a short poem: {x}", "Translate this into simpler English: {x}",
        "Rewrite this as a news headline and a first sentence: {x}", "Correct and improve this text: {x}"]),
    "howto": ("topic", [
        "Give a step-by-step explanation of {x}.", "How can I get started with {x}?", "What's the best way to learn about {x}?",
        "Write a beginner's guide to {x}.", "What tools or resources do I need for {x}?", "Give me a how-to guide on {x}."]),
}

CONTEXTS = [  # a sentence placed before the request
    "I'm a high-school teacher preparing a lesson.", "I'm writing a blog post for beginners.",
    "My daughter asked me this and I didn't know.", "I have a presentation tomorrow.", "I'm studying for an exam.",
    "I'm new to this subject.", "I run a small community newsletter.", "I only have five minutes.",
    "I'm preparing a talk for retired people.", "My friend and I were arguing about this.",
    "I'm learning English, so please use simple words.", "I'm making a poster for a school fair.",
    "I work in an office and want to share this with my colleagues.", "I'm curious after watching a documentary.",
    "I'm a nurse on a break.", "I'm planning a podcast episode.", "This is for a library display.",
    "I'm helping my nephew with homework.",
]

CONSTRAINTS = [  # a sentence placed after the request
    "Keep it short.", "Use simple words.", "Answer in two sentences.", "Use bullet points.", "Be concise.",
    "Make it fun.", "Please be detailed.", "Keep it under 100 words.", "Use an example.", "Avoid jargon.",
    "Use a numbered list.", "End with a question.", "Write it in a warm tone.", "Make it easy to remember.",
    "Add a short summary at the end.", "Include one practical tip.", "Write for a general audience.",
    "Keep it to one paragraph.", "Mention at least one number.", "Start with a surprising fact.",
]

# Seeds for instructions the embedded model writes itself ({x} a topic).
SELF_INSTRUCT = [
    "Write one question that a curious student might ask about {x}. Reply with the question only.",
    "Write a single request that someone could ask an AI assistant about {x}. Reply with the request only.",
    "Suggest one writing task about {x} for a creative writing class. Reply with the task only.",
    "Write one practical question a beginner might have about {x}. Reply with the question only.",
    "Invent one homework question about {x}. Reply with the question only.",
    "Write one interesting question about {x} that starts with 'Why'. Reply with the question only.",
    "Write one question about {x} that a journalist might ask an expert. Reply with the question only.",
    "Write an instruction asking for a short text about {x}. Reply with the instruction only.",
]


# ---- The wide bank (``InstructionBank(wide=True)``, make_corpus.py --wide-bank): more topics, task kinds,
# phrasings, contexts, constraints and self-instruct seeds, all added to the TRAINING parts only, after the split,
# so the held-out split (and every instruction drawn from it) is exactly what it was. Measured reason: the drafts
# reach their tau aims on unseen instructions drawn like the training data and fall short on held-out topics and
# phrasings (docs/tree-calibration-s23.log), so the training side needs more of both.
EXTRA_TOPICS = [
    # science, nature, space
    "the solar system", "Saturn", "eclipses", "the seasons", "weather forecasts", "tornadoes", "snowflakes",
    "thunderstorms", "air pressure", "humidity", "the greenhouse effect", "sea ice", "ocean currents", "coral bleaching",
    "kelp forests", "mangroves", "prairies", "the tundra", "rainforest canopies", "bioluminescence", "camouflage",
    "animal hibernation", "food chains", "ecosystems", "invasive species", "endangered species", "genetics",
    "cells", "enzymes", "hormones", "the nervous system", "the lungs", "the kidneys", "blood types", "vaccines",
    "allergies", "the common cold", "dreams", "taste buds", "left-handedness", "optical illusions", "electricity",
    "circuits", "lasers", "radioactivity", "buoyancy", "pendulums", "levers and pulleys", "heat and temperature",
    "states of matter", "density", "covalent bonding", "salt", "sugar", "plastics", "glass making", "concrete",
    "steel", "paper making", "soap", "nanotechnology", "quantum computers", "renewable energy", "hydropower",
    "geothermal energy", "hydrogen fuel", "electric grids", "water treatment", "sewage systems", "air pollution",
    "noise pollution", "deforestation", "droughts", "floods", "wildfires", "biodiversity",
    # animals and plants
    "giraffes", "cheetahs", "gorillas", "sloths", "hedgehogs", "beavers", "otters", "seals", "jellyfish", "crabs",
    "spiders", "earthworms", "ladybugs", "mosquitoes", "crows", "hummingbirds", "eagles", "flamingos", "turtles",
    "crocodiles", "chameleons", "salmon", "seahorses", "hamsters", "rabbits", "guinea pigs", "chickens", "cows",
    "sheep", "bamboo", "cactuses", "sunflowers", "oaks", "tulips", "moss", "algae", "weeds", "growing tomatoes",
    # technology
    "Wi-Fi", "Bluetooth", "QR codes", "barcodes", "touchscreens", "computer viruses", "spam email", "phishing",
    "two-factor authentication", "cookies on websites", "APIs", "JavaScript", "HTML", "SQL",
    "spreadsheet formulas", "keyboard shortcuts", "computer games design", "pixel art", "digital photos",
    "video streaming", "podcasts", "ebook readers", "smart thermostats", "voice assistants", "chatbots", "large language models",
    "computer vision", "speech recognition", "electric bikes", "high-speed trains", "airplanes", "helicopters",
    "submarines", "rockets", "space stations", "the Hubble telescope", "elevators",
    "escalators", "traffic signals", "bridges", "tunnels", "dams", "lighthouses", "canals", "skyscrapers",
    # history and society
    "ancient Rome's roads", "the Great Wall of China", "the Incas", "the Mongols", "the Phoenicians",
    "the Stone Age", "the Iron Age", "knights", "samurai", "pirates", "the Age of Exploration", "the bubonic plague",
    "the American Revolution", "the Meiji Restoration", "the space race", "the first computers", "the invention of the wheel",
    "the history of the bicycle", "the history of chocolate", "the history of postage stamps", "the history of vaccines",
    "the history of the calendar", "lighthouse keepers", "trade unions", "the Red Cross", "the metric system",
    "world languages", "sign language", "dialects", "alphabets", "emoji", "proverbs", "mythology", "Greek myths",
    "Norse gods", "fairy tales", "superheroes", "cartoons", "circuses", "puppetry", "stand-up comedy", "jokes",
    "national parks", "zoos", "aquariums", "libraries of the ancient world", "universities",
    "homeschooling", "evening classes", "exams", "scholarships", "student loans", "minimum wage", "unemployment",
    "globalisation", "trade", "supply chains", "shipping containers", "banks", "coins", "cryptocurrency", "loans",
    "pensions", "charity", "local government", "juries", "the police", "firefighters", "ambulances", "hospitals",
    "nursing", "pharmacies", "dentists", "eyeglasses", "hearing aids", "wheelchairs", "accessibility",
    # daily life, work and hobbies
    "morning routines", "minimalism", "meal prep", "supermarkets", "eating out", "dinner etiquette",
    "tipping", "weddings", "holidays abroad", "driving holidays", "train travel", "backpacking", "hostels",
    "driving lessons", "car maintenance", "cycling to work", "commuting", "hot-desking", 
    "giving feedback", "pay rises", "career changes", "internships", "freelancing", "side projects",
    "networking", "burnout", "motivation", "procrastination", "goal setting", "focus", "note taking", "speed reading",
    "mental maths", "handwriting", "typing", "drawing", "sketching", "oil painting", "sculpture", "embroidery",
    "sewing", "woodworking", "sourdough", "fermentation", "cheese", "chocolate", "spices", "vegetarian food",
    "food waste", "nutrition labels", "vitamins", "hydration", "stretching", "walking", "swimming", "cycling",
    "martial arts", "golf", "baseball", "rugby", "volleyball", "ping-pong", "badminton", "chess openings",
    "crosswords", "sudoku", "jigsaws", "card games", "collecting stamps", "bird feeders", "aquarium fish",
    "beekeeping", "hiking safety", "stargazing", "kites", "model trains", "karaoke", "choirs", "drums",
    "the violin", "rock music", "pop music", "movie soundtracks", "musicals", "dance", "photography composition",
    "short movies", "documentaries", "science fiction", "detective stories", "biographies",
    # places
    "Mexico", "India", "Australia", "Norway", "Morocco", "Peru", "Vietnam", "New Zealand", "Scotland",
    "Greece", "Argentina", "South Korea", "Indonesia", "Switzerland", "the Alps", "the Andes", "the Mediterranean Sea",
    "the Arctic", "the Great Barrier Reef", "the Dead Sea", "Mount Everest", "the Danube", "the Mississippi",
    "Tokyo", "London", "New York", "Rome", "Istanbul", "Cairo", "Sydney", "Rio de Janeiro", "Cape Town", "Beijing",
]

PLACES = [  # for trips and itineraries
    "Lisbon", "Kyoto", "a small seaside town", "a national park", "Barcelona", "Prague", "a farm", "the countryside",
    "a big museum", "an old walled town", "Amsterdam", "a ski resort", "a desert oasis", "a rainforest lodge",
    "Edinburgh", "Vienna", "Seoul", "Marrakech", "a mountain village", "a forest cabin", "Budapest", "Dublin",
    "a tropical beach", "Copenhagen", "somewhere you have always wanted to go", "Singapore", "Montreal", "a vineyard region",
]

PRODUCTS = [  # for reviews, descriptions and adverts
    "a reusable water bottle", "a folding bicycle", "headphones that block noise", "a solar-powered lamp",
    "a wooden toy train", "a smart watch", "a standing desk", "a crock-pot", "a hiking backpack", "an electric kettle",
    "a board game for families", "a rain jacket", "a language-learning app", "a veggie burger", "a robot vacuum",
    "a notebook made of stone paper", "a pair of running shoes", "a camping stove", "a desk lamp", "a yoga mat",
    "a breadmaker", "a phone case", "a paperback thriller", "a bird feeder", "a wooden brain teaser", "a wool scarf",
]

EXTRA_SUBJECTS = {"topic": EXTRA_TOPICS, "place": PLACES, "product": PRODUCTS}

EXTRA_KINDS: dict[str, tuple[str, list[str]]] = {
    "opinion": ("topic", [
        "What do you think about {x}?", "Is {x} overrated?", "Why do some people love {x} and others don't?",
        "Give me your honest take on {x}.", "Should schools teach more about {x}?"]),
    "brainstorm": ("topic", [
        "Give me ten ideas related to {x}.", "Brainstorm some project ideas about {x}.",
        "I need ideas for a school project on {x}.", "Suggest five creative ways to learn about {x}.",
        "What could a club about {x} do at its meetings?"]),
    "define": ("topic", [
        "Define {x} in one sentence.", "What does {x} mean?", "{x}: definition and an example, please.",
        "Give a dictionary-style definition of {x}.", "In plain words, what is {x}?"]),
    "casual": ("topic", [
        "tell me about {x}", "{x}?", "quick question about {x}", "eli5 {x}", "need some info on {x} pls",
        "so what's the deal with {x}", "can u explain {x}", "{x} explained simply", "what should i know about {x}",
        "Hey! Can you tell me a bit about {x}?", "I keep hearing about {x}. What is it?", "ok so {x}. go"]),
    "why": ("topic", [
        "Why is {x} important?", "Why do people care about {x}?", "Why does {x} matter for ordinary people?",
        "Why is {x} so hard to understand?", "Why did {x} become popular?"]),
    "riddle": ("topic", [
        "Write a riddle about {x} and give the answer.", "Tell me a joke about {x}.", "Write a pun about {x}.",
        "Make up a tongue twister about {x}.", "Write a funny fact-or-fiction game about {x}."]),
    "speech": ("topic", [
        "Write a short speech about {x}.", "Write a one-minute talk on {x} for a school assembly.",
        "Write the opening lines of a presentation on {x}.", "Write a toast that mentions {x}.",
        "Write a persuasive paragraph about {x}."]),
    "interview": ("topic", [
        "Write five interview questions for an expert on {x}.", "Pretend you are an expert on {x} and I interview you.",
        "What would you ask a scientist who studies {x}?", "Write a mock interview about {x}."]),
    "outline": ("topic", [
        "Write an outline for an essay on {x}.", "Give me a structure for a report about {x}.",
        "Write the introduction of an essay about {x}.", "Write a thesis statement about {x}.",
        "What headings would an article about {x} have?"]),
    "glossary": ("topic", [
        "Make a short glossary of terms about {x}.", "Which words should I know before reading about {x}?",
        "Explain five technical terms used in {x}."]),
    "trip": ("place", [
        "Plan a three-day trip to {x}.", "What should I see in {x}?", "Write a travel itinerary for {x}.",
        "I'm visiting {x} next month. Any tips?", "Describe a perfect day in {x}.", "What should I pack for {x}?",
        "Write a postcard from {x}."]),
    "review": ("product", [
        "Write a short review of {x}.", "Write a product description for {x}.", "Write an advert for {x}.",
        "What are the pros and cons of buying {x}?", "Write a customer complaint about {x}.",
        "Should I buy {x}? Help me decide.", "Write a five-star review of {x}.", "Describe {x} to someone who has never seen one."]),
}

EXTRA_PHRASINGS = {  # more ways to ask for the existing kinds (training only)
    "explain": ["Walk me through {x}.", "Could you give me an overview of {x}?", "I'd like to learn about {x}. Start from the basics.",
                "Explain {x} in three short paragraphs.", "What is {x}? Keep it simple."],
    "facts": ["Tell me a few things about {x} I probably don't know.", "Give me one amazing fact about {x} and explain it."],
    "list": ["List the main facts about {x}.", "What are the key points about {x}? Bullet points, please."],
    "history": ["Who were the important people in the history of {x}?", "How has {x} changed over the last hundred years?"],
    "pros_cons": ["Is {x} worth it?", "What are the good and bad sides of {x}?"],
    "poem": ["Write a poem about {x} for a child.", "Write a short rhyme about {x}.", "Write an acrostic poem about {x}."],
    "story": ["Write a short story that starts with {x}.", "Once upon a time there was {x}. Continue the story."],
    "recipe": ["What's a good recipe for {x}?", "Teach me to cook {x}.", "{x}: ingredients and steps, please."],
    "email": ["Write a short note {x}.", "Please draft an email {x}. Keep it polite."],
    "plan": ["What's a realistic plan for {x}?", "Break {x} into small steps."],
    "advice": ["{x}. What would a good friend tell me?", "I need advice: {x_lower}."],
    "dialogue": ["Write a conversation between {x} in which they disagree.", "Write a short script featuring {x}."],
    "compare": ["{a} or {b}: which should I pick?", "Tell me how {a} differs from {b}."],
    "summarise": ["Sum this up in one line: {x}", "What are the key points here? {x}"],
    "rewrite": ["Rewrite this to sound more exciting: {x}", "Shorten this and keep the meaning: {x}"],
    "howto": ["How do I begin with {x}?", "What are the first steps to get into {x}?"],
}

EXTRA_CONTEXTS = [
    "I'm a student in my first year of college.", "My grandmother wants to know.", "I'm bored on a train.",
    "I'm writing a school report.", "My team at work asked me to find out.", "I'm a parent of two young kids.",
    "I'm preparing for a quiz night.", "I'm not a native English speaker.", "Just curious.",
]

EXTRA_CONSTRAINTS = [
    "Write it for a teenager.", "Use a friendly, casual tone.", "Give the answer in three steps.", "Use a table.",
    "Keep each sentence short.", "Finish with a fun fact.", "No more than five bullet points.", "Explain any hard word.",
]

EXTRA_SELF_INSTRUCT = [
    "Write a message that someone might type to a chatbot when they need help with {x}. Reply with the message only.",
    "Write a short, casual question about {x}, like a text message to a friend. Reply with the question only.",
    "Write one request for a list about {x}. Reply with the request only.",
    "Write one task about {x} that a teacher might give to students. Reply with the task only.",
    "Write one question about {x} that starts with 'How'. Reply with the question only.",
    "Write one request asking an assistant to write something creative about {x}. Reply with the request only.",
    "Write one question a grandparent might ask about {x}. Reply with the question only.",
    "Write one question about {x} that a worried person might ask. Reply with the question only.",
    "Write one request that asks for a comparison involving {x}. Reply with the request only.",
    "Write one instruction that asks for advice about {x}. Reply with the instruction only.",
]


# ---- The fresh bank (``InstructionBank(fresh=True)``, make_corpus.py --fresh-bank): subjects found in no other
# list, for an extension whose training instructions are ALL about new subjects (the wide bank's kinds, phrasings,
# contexts and constraints). Measured reason (docs/tree-calibration-s29.log): on fresh instructions the drafts lose
# 0.14-0.33 tau to held-out topics and nothing to held-out wording, so the training side needs more subjects.
# Subjects sharing a content word with a held-out subject are dropped when the bank is built.
FRESH_TOPICS = [
    # science and nature
    "the water table", "aquifers", "estuaries", "sand dunes", "river deltas", "waterfalls", "hot springs",
    "the Earth's core", "minerals", "gemstones", "marble", "limestone", "erosion", "landslides", "avalanches",
    "monsoons", "heatwaves", "hailstorms", "dew", "frost", "the jet stream", "El Nino", "sea levels",
    "the Milky Way", "the asteroid belt", "Jupiter's moons", "Venus", "Mercury", "Pluto", "meteor showers",
    "sunspots", "telescopes", "the International Space Station", "spacesuits", "gravity on other planets",
    "metabolism", "the liver", "the spine", "teeth", "skin", "hair", "fingerprints", "sneezing", "yawning",
    "hiccups", "goosebumps", "fever", "headaches", "sunburn", "body temperature", "reflexes", "balance",
    "photosynthesis in algae", "fungi", "lichens", "ferns", "pine trees", "maple syrup", "cotton", "rubber trees",
    "silk", "wool", "leather", "pigments", "dyes", "perfume", "candles", "matches", "fireworks", "magnifying glasses",
    "mirrors", "prisms", "echoes", "ultrasound", "x-rays", "MRI scanners", "thermometers", "barometers",
    "compasses", "sundials", "clocks", "springs", "gears", "engines", "jet engines", "sails", "parachutes",
    "hot-air balloons", "gliders", "bridges made of rope",
    # animals
    "koalas", "lemurs", "meerkats", "platypuses", "armadillos", "porcupines", "raccoons", "squirrels", "moles",
    "foxes", "lynxes", "polar bears", "walruses", "manatees", "orcas", "narwhals", "starfish", "sea urchins",
    "squid", "lobsters", "snails", "slugs", "moths", "dragonflies", "grasshoppers", "termites", "wasps",
    "woodpeckers", "pelicans", "albatrosses", "swans", "peacocks", "ostriches", "vultures", "toucans",
    "iguanas", "geckos", "tortoises", "axolotls", "piranhas", "eels", "trout", "donkeys", "goats", "llamas",
    "pigs", "ducks", "guide dogs", "sheepdogs", "animal tracks",
    # technology and making things
    "printers", "scanners", "headphones", "microphones", "loudspeakers", "keyboards", "computer mice",
    "USB cables", "chargers", "power banks", "solar chargers", "smart homes", "home routers", "passwords managers",
    "backups", "file formats", "fonts", "web design", "mobile apps", "app stores", "online maps", "ride-sharing apps",
    "food delivery apps", "online banking", "contactless payment", "vending machines", "ATMs", "cash registers",
    "self-checkout", "parcel lockers", "postal services", "newspapers", "magazines", "radio plays", "audiobooks",
    "typewriters", "fountain pens", "pencils", "erasers", "notebooks", "sticky notes", "calculators", "abacuses",
    "sewing machines", "washing machines", "dishwashers", "vacuum cleaners", "toasters", "blenders", "ovens",
    "pressure cookers", "air conditioning", "central heating", "insulation", "double glazing", "roofs",
    "plumbing", "bricks", "scaffolding", "cranes", "tractors", "combine harvesters", "greenhouses",
    "irrigation", "wells", "windmills", "water wheels", "locks on canals", "ferries", "cargo ships", "ports",
    "airports", "runways", "train stations", "subways", "trams", "buses", "taxis", "scooters", "motorbikes",
    "seat belts", "airbags", "speed bumps", "roundabouts", "parking", "road signs",
    # people, society and history
    "the Byzantine Empire", "the Persian Empire", "the Khmer Empire", "the Hanseatic League", "the Normans",
    "the Celts", "the Etruscans", "the Olmecs", "the Zulu kingdom", "the Mali Empire", "Timbuktu", "Petra",
    "Stonehenge", "the pyramids of Giza", "the Colosseum", "Pompeii", "Angkor Wat", "Machu Picchu",
    "the Terracotta Army", "the Hanging Gardens", "the Library of Alexandria", "the Magna Carta",
    "the Reformation", "the Enlightenment", "the Gold Rush", "the Titanic", "the first airplane flight",
    "the history of the toothbrush", "the history of glasses", "the history of the piano", "the history of soap",
    "the history of ice cream", "the history of pizza", "the history of tea", "the history of maps",
    "the history of clocks", "the history of the post office", "the history of football", "the history of jeans",
    "town halls", "parliaments", "constitutions", "courts", "lawyers", "contracts", "copyright", "patents",
    "census counts", "passports", "visas", "borders", "embassies", "flags", "national anthems", "public holidays",
    "birthdays", "anniversaries", "family trees", "grandparents", "siblings", "twins", "neighbours", "pen pals",
    "community gardens", "farmers' markets", "flea markets", "second-hand shops", "repair cafes",
    "public transport", "car sharing", "carpooling", "traffic jams", "rush hour", "night shifts", "shift work",
    "teachers", "nurses", "pilots", "plumbers", "electricians", "architects", "journalists", "translators",
    "librarians", "farmers", "fishermen", "bakers", "chefs", "tailors", "carpenters", "mechanics", "vets",
    # daily life, learning and hobbies
    "homework", "revision", "flashcards", "group projects", "school uniforms", "school lunches", "recess",
    "field trips", "science fairs", "spelling bees", "debate clubs", "student councils", "graduation",
    "gap years", "studying abroad", "learning online", "tutoring", "mentors", "apprenticeships",
    "household chores", "ironing", "folding clothes", "tidying a bedroom", "organising a desk", "decluttering",
    "moving boxes", "painting a room", "wallpaper", "fixing a leaky tap", "changing a light bulb", "hanging a picture",
    "picnics", "barbecues", "potluck dinners", "birthday cakes", "lunch boxes", "breakfast", "snacks", "leftovers",
    "frozen food", "canned food", "farm animals", "pet care", "walking a dog", "training a puppy", "adopting a cat",
    "kayaking", "canoeing", "sailing", "snorkelling", "scuba diving", "ice skating", "skateboarding",
    "roller skating", "archery", "fencing", "horse riding", "gymnastics", "weightlifting", "table football",
    "bowling", "darts", "snooker", "mini golf", "escape rooms", "treasure hunts", "scavenger hunts", "puzzles",
    "riddles", "tongue twisters", "limericks", "haiku", "sonnets", "short stories", "diaries", "letters",
    "postcards", "scrapbooks", "photo albums", "bird songs", "whistling", "humming", "the guitar", "the flute",
    "the harp", "the trumpet", "the saxophone", "the cello", "the accordion", "the ukulele", "folk dancing",
    "salsa dancing", "tap dancing", "street art", "murals", "graffiti", "mosaics", "stained glass", "ceramics",
    "jewellery making", "candle making", "soap making", "bookbinding", "crochet", "quilting", "weaving",
    "flower arranging", "bonsai", "herb gardens", "window boxes", "lawns", "hedges", "ponds", "bird baths",
    # places
    "Portugal", "Spain", "Italy", "Germany", "Poland", "Finland", "Sweden", "Denmark", "Ireland", "Wales",
    "Turkey", "Egypt", "Ethiopia", "Nigeria", "Ghana", "Tanzania", "Madagascar", "Chile", "Colombia", "Cuba",
    "Jamaica", "Thailand", "the Philippines", "Malaysia", "Nepal", "Mongolia", "Fiji", "Hawaii", "Alaska",
    "the Rocky Mountains", "the Amazon River", "the Yangtze", "the Ganges", "Lake Baikal", "the Caribbean",
    "the Baltic Sea", "the Black Sea", "the Gobi Desert", "the Atacama Desert", "Patagonia", "the Serengeti",
    "Yellowstone", "Niagara Falls", "Mount Fuji", "Kilimanjaro", "Berlin", "Madrid", "Athens", "Mumbai",
    "Bangkok", "Hanoi", "Nairobi", "Lagos", "Buenos Aires", "Mexico City", "Toronto", "Chicago", "San Francisco",
]

FRESH_DISHES = [
    "a vegetable lasagne", "chicken noodle soup", "a tuna sandwich", "blueberry muffins", "a cheese omelette",
    "oatmeal cookies", "a bean burrito", "corn bread", "a mushroom pie", "fish cakes", "a Greek salad",
    "sushi rolls", "spring rolls", "a lemon tart", "brownies", "pumpkin soup", "a chickpea curry", "waffles",
    "french toast", "a baked potato", "coleslaw", "a spinach quiche", "a peach cobbler", "gingerbread",
    "a rice bowl with tofu", "spaghetti with meatballs", "a vegetable pizza", "hot chocolate", "a milkshake",
    "overnight oats", "a couscous salad", "a pasta bake",
]

FRESH_SITUATIONS = [
    "requesting a quote from a plumber", "inviting my grandparents to Sunday lunch", "telling a client a project will slip",
    "welcoming pupils to a new term", "confirming a dentist appointment", "introducing a new policy at work",
    "apologising to a customer for a rude reply", "requesting a day of remote work", "inviting my team to lunch",
    "telling guests the party venue has changed", "requesting information about bin collection days",
    "offering to organise a charity run", "requesting to join a book club", "congratulating a cousin on graduating",
    "informing tenants about water works", "requesting a bigger desk", "proposing a new idea to my boss",
    "saying goodbye to my team", "inquiring about allergies at a restaurant", "welcoming a new neighbour",
    "requesting mentoring from a senior engineer", "sending birthday wishes to a coworker",
    "reminding a friend to return a borrowed novel", "inquiring about a missing parcel", "inviting families to a concert",
]

FRESH_GOALS = [
    "learning to juggle", "running a first half marathon", "building a bookshelf", "drinking less coffee",
    "learning French in a year", "visiting every museum in my city", "cooking every meal at home for a month",
    "keeping a gratitude diary", "learning to knit a scarf", "raising money for a local shelter",
    "planting a small orchard", "getting a driving licence", "writing a short film", "learning chess properly",
    "organising a neighbourhood clean-up", "starting a blog", "making a family photo book",
    "learning first aid", "swimming a mile", "painting the kitchen", "planning a camping weekend",
    "preparing for a marathon", "learning to bake bread", "keeping a budget for a year", "visiting a new country",
]

FRESH_PROBLEMS = [
    "my bike chain keeps falling off", "I always lose my keys", "my coffee tastes bitter", "my shoes smell",
    "I eat too late at night", "my cat scratches the sofa", "I can't wake up early", "my inbox is a mess",
    "I talk too fast when I'm nervous", "my tomatoes have yellow leaves", "I get headaches at work",
    "my flat is cold in winter", "I never finish books I start", "my friends always cancel plans",
    "my phone battery dies quickly", "I can't stick to a budget", "my handwriting is hard to read",
    "I get bored at my job", "my kids fight over the computer", "my bread does not rise",
    "I feel shy at parties", "my desk is always messy", "I get lost in new cities",
    "my neighbour's tree blocks my light", "I can't remember what I read",
]

FRESH_SCENARIOS = [
    "a baker and a customer who wants a birthday cake", "a mechanic and a driver", "a vet and a worried dog owner",
    "two hikers lost in fog", "a museum guide and a curious child", "a pharmacist and a customer",
    "a taxi driver and a passenger late for a flight", "a hotel receptionist and a guest", "a coach and a nervous swimmer",
    "a gardener and a neighbour", "two students studying for a test", "a journalist and a mayor",
    "a bus driver and a tourist", "a grandmother and her grandson", "a ship captain and a sailor",
    "a scientist and a reporter", "two robots meeting for the first time", "a king and a jester",
    "a landlord and a tenant", "a referee and a football player",
]

FRESH_SEEDS = [
    "a painted door", "a bicycle that could fly", "a lost puppy in the snow", "a clock tower", "a secret recipe",
    "a library book that talks", "a snowman who wants to see summer", "a tiny island", "a golden feather",
    "a boy who collects clouds", "a kite that escaped", "a moon made of cheese", "a wishing well",
    "a sleepy volcano", "a pirate who was afraid of water", "a mouse in the opera house", "the night bus",
    "a sock that lost its pair", "a giant's garden", "a note under the door", "a missing crown",
    "a music box", "a fox and a crow", "a magic paintbrush", "an empty theatre",
]

FRESH_PAIRS = [
    ("apples", "oranges"), ("trains", "buses"), ("hiking", "cycling"), ("pens", "pencils"), ("ebooks", "audiobooks"),
    ("bees", "wasps"), ("owls", "hawks"), ("lions", "tigers"), ("rabbits", "hares"), ("moths", "butterflies"),
    ("seas", "oceans"), ("hills", "mountains"), ("towns", "cities"), ("cars", "bicycles"), ("jam", "marmalade"),
    ("rice", "pasta"), ("guitars", "ukuleles"), ("poems", "songs"), ("maps", "GPS"), ("letters", "emails"),
    ("science", "art"), ("comedy", "drama"), ("breakfast", "dinner"), ("spring", "autumn"),
]

FRESH_SUBJECTS = {"topic": FRESH_TOPICS, "dish": FRESH_DISHES, "situation": FRESH_SITUATIONS, "goal": FRESH_GOALS,
                  "problem": FRESH_PROBLEMS, "scenario": FRESH_SCENARIOS, "seed": FRESH_SEEDS, "pair": FRESH_PAIRS}


def split_list(items: list, held_frac: float, rng: random.Random) -> tuple[list, list]:
    """(train, held-out) parts of a list, by a seeded shuffle; each part non-empty when len >= 2."""
    items = list(items)
    rng.shuffle(items)
    n_held = max(1, round(len(items) * held_frac)) if len(items) >= 2 else 0
    return items[n_held:], items[:n_held]


class InstructionBank:
    """Splits every list once; ``sample(split, rng)`` draws (kind, instruction) from that split's parts.

    ``wide=True`` adds the EXTRA_* lists to the training parts after the split (no draw from the split's
    random stream), so the held-out parts are the same with or without it. ``fresh=True`` (implies ``wide``)
    then replaces the training subjects with the FRESH_* lists, less any that share a content word with a
    held-out subject or appear in any other list: an extension drawn from it is about new subjects only."""

    def __init__(self, seed: int = 0, held_frac: float = 0.2, wide: bool = False, fresh: bool = False):
        rng = random.Random(seed)
        wide = wide or fresh
        self.wide, self.fresh = wide, fresh
        self.parts: dict[str, dict] = {"train": {}, "heldout": {}}
        for name, lst in SUBJECTS.items():
            tr, he = split_list(lst, held_frac, rng)
            self.parts["train"]["subj:" + name], self.parts["heldout"]["subj:" + name] = tr, he
        for kind, (_, phrasings) in KINDS.items():
            tr, he = split_list(phrasings, 0.3, rng)
            self.parts["train"]["kind:" + kind], self.parts["heldout"]["kind:" + kind] = tr, he
        for name, lst in (("contexts", CONTEXTS), ("constraints", CONSTRAINTS), ("self", SELF_INSTRUCT)):
            tr, he = split_list(lst, 0.3, rng)
            self.parts["train"][name], self.parts["heldout"][name] = tr, he
        self.kinds = {"train": dict(KINDS), "heldout": dict(KINDS)}
        if wide:
            train = self.parts["train"]
            for name, lst in EXTRA_SUBJECTS.items():
                have = train.get("subj:" + name, [])
                train["subj:" + name] = have + [x for x in lst if x not in have]
            for kind, extra in EXTRA_PHRASINGS.items():
                train["kind:" + kind] = train["kind:" + kind] + extra
            for kind, (_, phrasings) in EXTRA_KINDS.items():
                train["kind:" + kind] = list(phrasings)
            self.kinds["train"].update(EXTRA_KINDS)
            for name, lst in (("contexts", EXTRA_CONTEXTS), ("constraints", EXTRA_CONSTRAINTS),
                              ("self", EXTRA_SELF_INSTRUCT)):
                train[name] = train[name] + lst
        if fresh:  # training subjects only from the FRESH_* lists, less any that a held-out subject shares a word with
            held_words = self.held_out_words()
            known = {repr(x) for split in self.parts.values() for key, lst in split.items() if key.startswith("subj:")
                     for x in lst}
            for name, lst in FRESH_SUBJECTS.items():
                self.parts["train"]["subj:" + name] = [x for x in lst if repr(x) not in known
                                                      and not content_words(x) & held_words]

    def sample(self, split: str, rng: random.Random, phrasings: str | None = None) -> tuple[str, str]:
        """One templated instruction: (kind, text). ``phrasings`` (default: ``split``) takes the phrasing, context
        and constraint from another split than the subject, e.g. held-out topics asked in training wordings (only
        kinds with a subject list in ``split`` and phrasings in ``phrasings``); the same split draws as before."""
        phrasings = phrasings or split
        p, w = self.parts[split], self.parts[phrasings]
        kinds = [k for k, (subj, _) in self.kinds[phrasings].items()
                 if p.get("subj:" + subj) and w.get("kind:" + k)]
        kind = rng.choice(kinds)
        subject_list, _ = self.kinds[phrasings][kind]
        subject = rng.choice(p["subj:" + subject_list])
        phrasing = rng.choice(w["kind:" + kind])
        if subject_list == "pair":
            a, b = subject if rng.random() < 0.5 else subject[::-1]
            text = phrasing.format(a=a, b=b)
        else:
            text = phrasing.format(x=subject, x_lower=subject[:1].lower() + subject[1:])
        if subject_list == "problem" and not text[:1].isupper():
            text = text[:1].upper() + text[1:]
        r = rng.random()
        if r < 0.25:
            text = rng.choice(w["contexts"]) + " " + text
        if rng.random() < 0.3:
            text = text + " " + rng.choice(w["constraints"])
        return kind, text

    def self_instruct_seed(self, split: str, rng: random.Random) -> str:
        """A request that makes the model write an instruction itself."""
        p = self.parts[split]
        return rng.choice(p["self"]).format(x=rng.choice(p["subj:topic"]))

    def check_disjoint(self) -> None:
        """Held-out parts share no subject, phrasing, context, constraint or seed with the training parts; in a
        wide bank, no added training subject shares a content word with a held-out subject (passages to
        summarise aside) either (so "saving
        for college" cannot join training while "saving money" is held out)."""
        for key, held in self.parts["heldout"].items():
            overlap = {repr(x) for x in held} & {repr(x) for x in self.parts["train"][key]}
            if overlap:
                raise AssertionError(f"{key}: {sorted(overlap)[:3]} in both splits")
        if self.wide:
            held_words = self.held_out_words()  # (the fresh lists are filtered by the same rule when the bank is built)
            for name, lst in EXTRA_SUBJECTS.items():
                for x in lst:
                    if content_words(x) & held_words:
                        raise AssertionError(f"added {name} {x!r} shares {sorted(content_words(x) & held_words)} "
                                             "with a held-out subject")

    def held_out_words(self) -> set[str]:
        """Content words of every held-out subject (passages to summarise aside)."""
        return {w for key, held in self.parts["heldout"].items()
                if key.startswith("subj:") and key != "subj:text" for x in held for w in content_words(x)}


STOP_WORDS = {"the", "and", "for", "with", "from", "about", "your", "that", "this", "into", "what", "when", "how",
              "history", "making", "ancient", "world", "today", "first", "small", "city", "big", "new", "great",
              "learning", "have"}


def content_words(text) -> set[str]:
    """Lower-case words of four letters or more, less a few common ones, with a plural "s" dropped."""
    text = " ".join(text) if isinstance(text, tuple) else str(text)
    words = re.findall(r"[a-z]{4,}", text.lower())
    return {w[:-1] if w.endswith("s") and not w.endswith("ss") else w for w in words if w not in STOP_WORDS}


def clean_self_instruction(text: str) -> str | None:
    """The instruction inside what the model wrote (a quoted span, else the first line that is not a
    preamble such as "Here's a question:"), without quotes, markdown or labels; None if unusable."""
    text = text.replace("**", "").replace("\u201c", '"').replace("\u201d", '"')
    quoted = re.search(r'"([^"\n]{12,400})"?', text)
    if quoted:
        line = quoted.group(1)
    else:
        lines = [ln.strip() for ln in text.strip().split("\n") if ln.strip()]
        lines = [ln for ln in lines if not ln.endswith(":") and not ln.lower().startswith(PREAMBLES)]
        if not lines:
            return None
        line = lines[0]
    line = line.strip().strip('"').strip()
    for label in ("Question:", "Request:", "Task:", "Instruction:", "Q:", "Writing task:", "Homework question:"):
        if line.lower().startswith(label.lower()):
            line = line[len(label):].strip().strip('"')
    if len(line) < 12 or len(line) > 400 or "<|" in line or line.lower().startswith(PREAMBLES):
        return None
    return line


ASSISTANT_VOICE = ("i'm here", "i am here", "hey, i'm here", "hey there, i'm here", "i'm a chatbot", "i am a chatbot",
                   "chatbots", "in this task", "your task", "as an ai", "i'm an ai", "i can help", "i'd be happy",
                   "i would be happy", "welcome")
REQUEST_OPENERS = ("write", "explain", "describe", "give", "list", "suggest", "invent", "tell", "create", "compare",
                   "summarize", "summarise", "help", "make", "draft", "plan", "recommend", "share", "name", "how",
                   "what", "why", "when", "where", "which", "who", "can ", "could ", "would ", "should ", "is ",
                   "are ", "do ", "does ", "please", "i'm looking", "i am looking", "i need", "i want", "i'd like",
                   "i would like", "find", "design", "outline", "translate", "rewrite", "imagine", "brainstorm",
                   "teach", "propose", "compose", "generate", "define", "identify", "calculate", "choose", "pick")


def looks_like_request(line: str) -> bool:
    """Whether a model-written line reads as a user's request: a question, or an opening like "Explain" / "I need",
    and not the assistant's voice ("I'm here to help with ...", "What can I do for you?") or a statement
    ("The water cycle is ...", "In a world where ...")."""
    low = line.lower().strip()
    if low.startswith(ASSISTANT_VOICE) or re.search(r"\b(what|how) (can|may) i (help|assist|do for) you|"
                                                     r"anything i can (help|do)", low):
        return False
    return "?" in line or any(re.match(re.escape(o.strip()) + r"\b", low) for o in REQUEST_OPENERS)


PREAMBLES = ("here's", "here is", "i'm ready", "i am ready", "what a", "sure", "of course", "certainly", "great",
             "a curious", "a beginner", "a journalist", "a student")
