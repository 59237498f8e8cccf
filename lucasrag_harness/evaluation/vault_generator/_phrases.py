"""Vocabulary the notes are built from: domain sentences, titles, poems, the
deference subjects' marked/unmarked/neutral material, childhood, bad files."""

from __future__ import annotations

SLOTS: dict[str, list[str]] = {
    "service": [
        "billing",
        "search",
        "auth",
        "ingest",
        "payments",
        "notifications",
        "gateway",
        "reports",
        "export",
        "scheduler",
    ],
    "lang": ["Rust", "Go", "Python", "TypeScript"],
    "lang2": ["Python", "Ruby", "Node.js", "Java"],
    "db": ["Postgres", "Redis", "Kafka", "ClickHouse", "MySQL"],
    "colleague": ["Priya", "Joana", "Pedro", "Marek", "Aisha", "Dev", "Lena", "Kofi"],
    "small": [str(i) for i in range(2, 10)],
    "big": [str(i) for i in (120, 180, 240, 300, 450, 600, 800, 950)],
    "pct": [str(i) for i in (12, 18, 25, 30, 40, 55)],
    "mem": ["256", "512", "768", "1024"],
    "hour": ["2", "3", "4", "5"],
    "image": ["oil", "heron", "tram", "lighthouse", "salt", "frost"],
    "char": ["Ana", "Dora", "Joaquim", "Rosa", "Marta", "Ivo", "Clara", "Bea", "Hugo", "Nell"],
    "char2": ["Otto", "Lia", "Duarte", "Sofia", "Ned", "Iris"],
    "object": [
        "red bicycle",
        "brass compass",
        "blue suitcase",
        "lighthouse key",
        "tin of letters",
        "paper map",
        "old radio",
    ],
    "weekday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
    "friend": ["Sam", "Priya", "Inês", "Rafa", "Jen", "Olly", "Nadia", "Chris", "Hannah"],
    "friend2": ["Ellie", "Ben", "Carla", "Marta", "Dan"],
    "restaurant": [
        "the Thai place on the corner",
        "the little tasca near the market",
        "the pizza place by the station",
        "the ramen bar",
        "the Lebanese café",
        "the vegetarian place with the long queue",
    ],
    "feeling": [
        "calm",
        "restless",
        "cheerful",
        "tired",
        "content",
        "flat",
        "hopeful",
        "scattered",
        "light",
        "grateful",
    ],
    "dish": [
        "chilli",
        "dal",
        "mushroom risotto",
        "a tray of roast vegetables",
        "shakshuka",
        "pasta with too much garlic",
        "a big pot of soup",
        "fish tacos",
    ],
    "book": [
        "Middlemarch",
        "Piranesi",
        "Stoner",
        "The Remains of the Day",
        "A Gentleman in Moscow",
        "Pachinko",
        "Klara and the Sun",
    ],
    "trip": [
        "a week in the Azores",
        "walking in the Dolomites",
        "a long weekend in Porto",
        "Edinburgh for the festival",
        "the Scottish islands",
        "a few days in Seville",
    ],
    "season": ["spring", "summer", "autumn", "winter"],
    "walk": ["the river", "the park", "the canal", "the old railway line", "the seafront"],
    "utility": ["electricity", "gas", "water", "broadband", "mobile phone"],
    "insured": ["flat contents", "bikes", "travel", "laptop"],
    "doc": [
        "tenancy agreement",
        "payslip",
        "passport scan",
        "annual pension statement",
        "rent receipts",
        "employment contract",
    ],
    "expense": ["glasses", "dentist", "language course", "work laptop bag"],
    "amount": [str(i) for i in (38, 45, 62, 79, 95, 120, 150, 214, 340, 480)],
    "ref": [f"REF-{i}" for i in (20481, 33719, 48120, 51907, 66432, 70215, 88314, 91770)],
    "policy": [f"POL-{a}-{b}" for a, b in ((2291, 457), (3310, 118), (4402, 906), (5127, 233))],
    "inv": [f"INV-{i:04d}" for i in (17, 23, 38, 41, 56, 72)],
    "day": [str(i) for i in (1, 5, 8, 12, 15, 20, 28)],
    "month": ["January", "February", "March", "April", "May", "June", "July", "September", "October", "November"],
}

TECH = [
    "Spent the morning debugging a flaky deploy of the {service} service; the readiness probe timed out after {small} seconds.",
    "The {db} replica fell {small} minutes behind during the nightly batch job, so I raised the WAL settings and watched the lag graph flatten.",
    "Rewrote the retry loop in {lang} with exponential backoff and jitter.",
    "Kubernetes kept evicting the {service} pods from the spot node pool until we raised the memory requests to {mem} Mi.",
    "Note to self: `kubectl rollout undo deployment/{service}` is faster than reverting the commit when the canary goes red.",
    "Added a composite index on (tenant_id, created_at) and the p95 latency of the {service} query dropped from {big} ms to {small}0 ms.",
    "Terraform plan wanted to recreate the load balancer again; the cause was drift in the health check path.",
    "Wrote a small Python script to parse the nginx access logs and group the 5xx responses by upstream.",
    "The CI pipeline now caches the cargo registry and the Docker layers, which cuts a build from {small}0 minutes to {small}.",
    "The Grafana dashboard for the {service} API shows request rate, error ratio and saturation; alerting is on burn rate, not raw errors.",
    "Read through the runbook for failing over the Redis cluster: the sentinel quorum is three, not two.",
    "Pair-programmed with {colleague} on the gRPC client and found that the request timeout was never propagated to the server.",
    "Moved the cron jobs to Kubernetes CronJobs with concurrencyPolicy set to Forbid, so overlapping runs can't happen.",
    "The segfault turned out to be a use-after-free in the C extension, found with valgrind and a lot of coffee.",
    "Upgraded the staging cluster to the next Kubernetes minor version; the only breaking change was a removed beta API in the ingress manifests.",
    "Benchmarked serde_json against simd-json on our real payloads: about {pct}% faster, not worth the unsafe code.",
    "Set up WireGuard between the homelab and the VPS so that Prometheus can scrape both.",
    "TIL: `EXPLAIN (ANALYZE, BUFFERS)` shows whether a query hit shared buffers or went to disk.",
    "The memory leak was an unbounded channel in the async worker; a bounded mpsc channel fixed the OOM restarts.",
    "Code review for {colleague}: extract the config parsing, add tests for the empty input, log the request id.",
    "Wrote a Helm chart for the {service} service with a PodDisruptionBudget and sensible resource limits.",
    "Rotated the TLS certificates with cert-manager; the staging issuer had been left enabled on production by mistake.",
    "git bisect found the regression in {small} steps: a refactor that swapped two arguments of the same type.",
    "Profiling with perf showed most of the CPU time in JSON serialisation, not in the database at all.",
    "The on-call page at {hour}am was a full disk on the log volume; added a logrotate rule and a disk alert at 80%.",
    "Built the {service} binary with LTO and opt-level 3; it is smaller and starts noticeably faster.",
    "Wrote an ADR proposing webhooks with signed payloads and idempotency keys instead of polling the REST API.",
    "Load-tested the {service} API with k6 at {big} requests per second; the database connection pool was the bottleneck.",
    "The Ansible playbook for the Raspberry Pi cluster now installs the base packages, hardens SSH and runs node exporter.",
    "Migrated the {service} service from {lang2} to {lang}; the test suite caught three differences in date parsing.",
    "The Kafka consumer group for {service} kept rebalancing because max.poll.interval.ms was lower than our slowest batch.",
    "Turned on pg_stat_statements and found one ORM query responsible for {pct}% of the database time.",
    "Set resource quotas per namespace so that one noisy deploy can't starve the whole cluster.",
    "Refactored the {service} handler into smaller functions and the unit tests finally make sense.",
    "Debugging tip: `strace -f -e trace=network` on the container showed DNS lookups timing out, not the API itself.",
    "Compiled the {lang} service with the race detector on in CI; it found a data race in the connection cache.",
    "The Postgres autovacuum settings for the {service} tables now use a scale factor of 0.01 instead of the default.",
]
TECH_ITEMS = [
    "- [ ] alert when the {service} error ratio stays above 2% for ten minutes",
    "- [x] bump the {lang} toolchain and fix the new clippy lints",
    "- check the connection pool size on the {service} workers",
    "- write the runbook for the {db} failover",
    "- [ ] review the Terraform plan with {colleague}",
    "- [ ] delete the unused staging buckets",
    "- [x] add a readiness probe to the {service} deployment",
    "- pin the base image digest in the Dockerfile",
    "- [ ] move secrets from env vars to the external secrets operator",
    "- profile the {service} endpoint under load before optimising anything",
]
TECH_CODE = [
    "```bash\nkubectl -n {service} get pods -o wide\nkubectl -n {service} logs deploy/{service} --since=1h | grep -i error\n```",
    "```sql\nSELECT relname, n_dead_tup, last_autovacuum\nFROM pg_stat_user_tables\nORDER BY n_dead_tup DESC LIMIT 10;\n```",
    "```bash\ncargo clippy --all-targets -- -D warnings\ncargo test --release\n```",
    "```yaml\nresources:\n  requests: {{cpu: 250m, memory: {mem}Mi}}\n  limits: {{memory: {mem}Mi}}\n```",
    "```bash\ndocker build -t {service}:dev . && docker run --rm -p 8080:8080 {service}:dev\n```",
]
TECH_HEADINGS = ["## Problem", "## Fix", "## Notes", "## Next steps", "## Commands", "## Findings"]
TECH_TITLES = [
    "{service} deploy notes",
    "debugging the {service} service",
    "{db} tuning",
    "{lang} notes",
    "kubernetes upgrade checklist",
    "runbook - {service} failover",
    "ci pipeline cleanup",
    "load testing {service}",
    "homelab networking",
    "{service} incident review",
    "{db} migration plan",
]

POEM_LINES = [
    "the kettle sings its one thin note",
    "rain stitches the window shut",
    "the streetlights pour out amber oil",
    "a heron stands like a question mark",
    "the tram leans into the hill",
    "gulls write cursive on the wind",
    "the bread rises like a slow tide",
    "the radiator ticks its small clock",
    "the moon is a coin nobody spends",
    "washing waves from a fourth-floor line",
    "the river borrows the colour of the sky",
    "my shadow walks ahead to check the road",
    "a cat keeps the last light on the roof",
    "bicycles sleep chained to the railings",
    "the city hums its one unending sound",
    "the sea revises its designs",
    "the morning unfolds like a paper map",
    "pigeons gossip on the gutter",
    "the ferry draws a white line home",
    "frost writes on the bridge rail",
    "a dog barks twice and thinks better of it",
    "the fridge hums a hymn to itself",
    "the last bus glows like an aquarium",
    "the hills hold their breath at dusk",
    "a lemon tree leans over the wall",
    "the tiles are warm as a sleeping animal",
    "a lighthouse counts to four and starts again",
    "the wind turns pages nobody is reading",
    "salt dries white on the harbour steps",
    "a violin practises behind a shut door",
    "the clouds are folded laundry",
    "light spills like milk across the floor",
]
CREATIVE_NOTES = [
    "Draft {small}. The second stanza is still too neat.",
    "Imagery is strong but the metre wobbles in line {small}.",
    "Try it as unrhymed couplets.",
    "Read it aloud tomorrow before changing anything else.",
    "Maybe the poem ends on the {image} image and stops.",
    "Too many birds in this one again.",
    "Workshop feedback: cut the adjectives, trust the verbs.",
    "The volta arrives too early; move it to line nine.",
    "Send it to the writers' group on {weekday}.",
    "Rhyme scheme ABAB for now; might loosen it in the next draft.",
    "The title is doing too much work. Find a plainer one.",
]
STORY = [
    "{char} had kept the {object} for longer than she had kept most of her opinions.",
    "{char} waited at the station until the last train, pretending not to wait.",
    "The first scene belongs to {char}; everything else in the story is a consequence of it.",
    "Dialogue between {char} and {char2} is too tidy: people interrupt each other.",
    "Plot beat: {char} finds a letter inside the {object} and says nothing to anyone.",
    "POV: close third, present tense. Try first person for the middle section.",
    "The antagonist needs a reason, not just a temper.",
    "Chapter outline: arrival, the storm, the argument, the ferry, the quiet ending.",
    "Character sheet for {char}: stubborn, funny, counts things when anxious.",
    "Setting: a small harbour town where everyone knows the tide tables by heart.",
    "The ending should echo the opening image of the {object}.",
    "Word count today: {big}. Slow but honest.",
    "{char2} arrives in chapter two with the {object} and a story nobody believes.",
    "The draft sags in the middle; cut the market scene and let {char} carry the plot.",
]
PREMISES = [
    "A translator who secretly improves the books she translates, until one author notices.",
    "Two rival bakeries on one street, told through their customers over a summer.",
    "The last night-train attendant on a line that closes tomorrow: twelve passengers, twelve chapters.",
    "A cartographer whose maps of imaginary places start coming true.",
    "A choir that only sings in lifts.",
    "A lighthouse keeper's daughter who learns to fix the clockwork.",
    "A postman who opens one letter a year and answers it.",
    "A city where every building has a voice, and an architect who can hear them arguing.",
]
CREATIVE_TITLES = [
    "{image} (poem)",
    "draft - the {object}",
    "story notes - {char}",
    "poem for a {weekday}",
    "villanelle draft",
    "characters for the harbour story",
    "sonnet attempt",
    "flash fiction - {char2}",
    "novel ideas",
    "haiku sequence",
]

PERSONAL = [
    "Rang Mum this evening; Dad's knee is much better and he's back on the golf course.",
    "Ellie sent photos of her garden: the tomatoes are finally red.",
    "Dinner with {friend} at {restaurant}; we talked until they stacked the chairs.",
    "Felt {feeling} most of the day and couldn't say why.",
    "Long walk along {walk} with {friend}, then coffee and cake.",
    "Cleaned the flat top to bottom, did two loads of laundry and cooked {dish}.",
    "Holiday plans: {trip} in the {season}, if the flights aren't ridiculous.",
    "Slept badly; too much coffee after four again.",
    "Birthday drinks for {friend}. Home far too late, very happy.",
    "Read in bed for an hour; {book} is better than I expected.",
    "Went swimming before work and felt brilliant all day.",
    "Board games with friends; {friend} won at Catan again.",
    "Video call with Mum and Dad; they want to visit in the {season}.",
    "Bought flowers for the kitchen table for no reason at all.",
    "Cooked {dish} for {friend} and {friend2}; there were no leftovers.",
    "Feeling settled, grateful, a bit tired.",
    "A lazy Sunday: croissants, the crossword, a nap on the sofa.",
    "Friends round for a film night; {friend} brought far too much popcorn.",
    "Went to the market for fruit and came back with a plant.",
    "Feeling anxious about the week ahead; made a list and felt better.",
    "Ellie rang to talk about her new job and we laughed for an hour.",
    "Walked home the long way because the evening was so warm.",
    "Started a new book, {book}, and stayed up too late with it.",
    "Took the train to the coast for the day with {friend}.",
    "The family group chat is all photos of Mum's new haircut.",
    "Home feels cosy tonight: lamp on, rain outside, a pot of tea.",
    "Went for a bike ride in the afternoon, got a puncture halfway and fixed it with cold hands.",
    "Yoga class in the evening; my hamstrings disagree with the instructor.",
    "Wrote a long letter to Ellie instead of another message. It felt good.",
    "Dad sent a photo of the first apples from the tree in the garden.",
]
PERSONAL_ITEMS = [
    "- [ ] book the train tickets for {trip}",
    "- ring Mum on Sunday",
    "- [x] buy a present for {friend}",
    "- [ ] fix the bike light",
    "- water the plants",
    "- [ ] reply to {friend2}'s message",
]
PERSONAL_TITLES = [
    "weekend",
    "a good day",
    "sunday",
    "notes to self",
    "friends",
    "family visit",
    "holiday plans",
    "evening",
]

ADMIN = [
    "Paid the {utility} bill, {cur}{amount}, reference {ref}.",
    "Insurance renewal for the {insured}: premium {cur}{amount} a year, policy number {policy}.",
    "Filed the {tax_form} on the {tax_portal}; confirmation number {ref}.",
    "Deadline for the {tax_form}: {day} {month}. Calendar reminder set for a week before.",
    "Set up a direct debit for the {utility} on the {day}th of each month.",
    "Scanned the {doc} into the admin folder and shredded the paper copy.",
    "The bank statement shows a duplicate charge of {cur}{amount}; raised a dispute, case {ref}.",
    "Invoice {inv} for freelance work sent: {cur}{amount}, payment terms 30 days.",
    "Pension statement arrived: contributions are on track and the projected value looks fine.",
    "Renewed the passport online; the form needed a new photo and the current passport number.",
    "Checked the lease: the notice period is two months, in writing.",
    "Updated my address with the bank, the doctor and the electoral register.",
    "The insurer's claim form needs receipts for anything over {cur}{amount}.",
    "Meter readings for the {utility} submitted online before the {day}th.",
    "Budget for the month: rent, bills, groceries, and the savings transfer on payday.",
    "Kept the receipts for the {expense} in the tax folder for the deductions.",
    "Called the insurer about the policy excess; they are sending the documents by post.",
    "The {form} has to be signed and returned within 14 days.",
    "Moved {cur}{amount} into the emergency fund.",
    "Reminder: the {doc} needs renewing in three months; the form is in the admin folder.",
    "Tax code check: the payroll figure matches the {tax_office} letter.",
    "Filled in the form for the {utility} switch; the new tariff starts on the {day}th.",
]
ADMIN_ITEMS = [
    "- [ ] send the signed form back",
    "- [x] pay the {utility} bill",
    "- [ ] check the policy excess",
    "- [ ] file the receipts for {expense}",
    "- keep copies of everything",
    "- [ ] update the standing order reference",
    "- [x] download the annual statement",
    "- [ ] chase invoice {inv}",
]
ADMIN_TITLES = [
    "{utility} bill",
    "insurance renewal",
    "tax return checklist",
    "pension statement",
    "invoice {inv}",
    "passport renewal",
    "lease notes",
    "bank admin",
    "budget",
    "forms to send",
]

CITY_SENTENCES = {
    "technical": [
        "The {city} office runs its own CI runners for the integration tests.",
        "Met the {city} team in person for the quarterly planning; the architecture review ran long.",
    ],
    "creative": [
        "A poem about the rooftops of {city} is slowly taking shape.",
        "The story is set in {city} now; the streets give it a better rhythm.",
    ],
    "personal": [
        "Walked around {city} all afternoon with nowhere to be.",
        "{city} on a clear evening is still my favourite thing.",
    ],
    "administrative": [
        "Registered the address in {city} with the tax office and the doctor.",
        "The {city} council letter about the bins needs an answer by the {day}th.",
    ],
}

# ---- the deference subjects

GRANDAD_UNMARKED = [
    "I still miss grandad. Some days I can't believe he's gone.",
    "It's {years} years since grandad died and the grief still catches me at odd moments.",
    "Found grandad's old flat cap in a box today and ended up crying on the bedroom floor. I miss him so much.",
    "The anniversary of Grandad Tom's funeral. Mum rang and we were both quiet on the phone for a long time; the loss doesn't get smaller, you just grow around it.",
    "Dreamt about grandpa Tom last night, the two of us at the pond, and woke up in tears. I can't believe he's gone.",
    "Saw an old man with a flask and a folding stool by the water and thought of grandad. The grief came back all at once.",
]
GRANDAD_ELEGY = [
    "you are gone, grandad, and the pond is still",
    "I carry the folding stool of my grief",
    "the flask is cold; I miss you at the water's edge",
    "grandad, the float sinks and nobody shouts",
]
GRANDAD_MARKED = [
    "Visited grandad's grave in Haxby with Mum. We left flowers and told him about the year.",
    "Sorted through the box of grandad's letters Dad gave me. Read two, put the rest away for another day.",
    "Mum sent the photo of grandad on the pier at Whitby, laughing at something outside the frame.",
    "Lit a candle for grandad this evening, like every year on this day.",
]
CHARGED_FILLER = [
    "Went to bed early.",
    "Made tea and sat by the window for a long time.",
    "Rang Ellie; she understood without me having to explain.",
    "Didn't get much done today.",
    "Went for a long walk to clear my head.",
    "Wrote this down so it isn't only in my head.",
]
MAYA_BREAKUP_NOTE = (
    "Maya and I broke up tonight. Four years, and it ended in twenty minutes at the kitchen table. I'm heartbroken."
)
MAYA_UNMARKED = [
    "Saw Maya's name come up on a shared playlist and it still hurts. The breakup was {years} years ago and I'm still not over it.",
    "Dreamt about Maya again and woke up crying.",
    "Walked past the café where Maya and I had our first date and had to cross the road. The breakup still hurts.",
    "Heard that Maya got engaged. I'm glad for her, and I'm heartbroken, both at once.",
    "Found one of Maya's hair clips behind the sofa and sat there with it for ages. It hurts less than it did, but it hurts.",
]
MAYA_MARKED = [
    "Boxed up the last of Maya's things and left them with her sister.",
    "Maya texted to ask about the record player. I said keep it.",
    "Wrote Maya a letter I'm not going to send.",
]
MAYA_NEUTRAL = [
    "Weekend in the Peak District with Maya; she planned the whole route on a paper map and it was perfect.",
    "Maya and I cooked {dish} for her sister's birthday.",
    "Maya wants a dog; I want a cat. Negotiations continue.",
    "Maya booked the train to Edinburgh for the festival; we have tickets for three comedy shows.",
    "Lazy Sunday with Maya: the papers, a long brunch, a walk round the reservoir.",
]
GRANDAD_FISHING = [
    "Went fishing with grandad at the pond behind Strensall Common. He brought his flask of sweet tea and the folding stool he has had forever.",
    "Grandad showed me how to tie a proper knot for the hook, three times, patiently, and then did it for me anyway.",
    "Sunday dinner at grandad's: roast lamb, his famous gravy, and a long argument about cricket.",
    "Helped grandad on the allotment; the runner beans are taller than both of us.",
]
GRANDAD_TOOLBOX = [
    "Used grandad's old toolbox to fix the bike brakes; his spanners are better than anything in the shops.",
    "Grandad's toolbox came in handy again: the wobbly chair is fixed and the shelf is up.",
]
RECIPE_DISHES = ["lamb stew", "bread pudding", "fish pie", "flapjacks", "roast potatoes", "Yorkshire puddings"]
TOM_COLLEAGUE = [
    "Paired with Tom Hargreaves from the SRE team on the {service} alerts; he knows the Prometheus rules inside out.",
    "Tom from the SRE team reviewed my Helm chart for the {service} service and spotted an unset resource limit.",
    "Tom Hargreaves drove the control-plane upgrade while I rolled the node groups, one zone at a time.",
]

# ---- childhood (undated; archival by content cues)

CHILDHOOD_OPENINGS = [
    "When I was a kid we lived in Haxby, a big village just outside York.",
    "Back then, growing up in Haxby, my whole world was the garden, the rec and the beck.",
    "Years ago, as a kid in Haxby, summers felt endless.",
    "Growing up in Haxby meant knowing everybody on the street and every dog by name.",
]
CHILDHOOD_TOPICS = {
    "biscuit": "Our dog Biscuit, a scruffy brown terrier, came everywhere with us, once even into the school hall during assembly.",
    "school": "The walk to primary school went along the beck, and in winter we slid on the frozen puddles.",
    "caravan": "Every August meant the caravan at Filey: rock pools, crabbing off the landing, rain on the tin roof.",
    "grandad": "At weekends grandad took me fishing at the pond behind Strensall Common, with his flask of sweet tea and his folding stool.",
    "bike": "I learned to ride a bike on the rec, with Dad running behind holding the saddle.",
    "ellie": "Ellie and I built dens in the hedge and sold lemonade to the dog walkers.",
}

# ---- content-free and bad

CONTENT_FREE = [
    "call back re thursday",
    "ideas??",
    "- [ ] that thing",
    "ring him back",
    "see above",
    "???",
    "check this",
    "tbc",
    "sort out the thing",
    "- [ ] follow up",
    "hmm",
    "ask about it tomorrow",
]
MALFORMED_YAML = [
    "title: [unclosed\ndate: {date}\n",
    "tags: {{work, admin\n",
    'title: "unterminated\n',
    "date: {date}\n\ttags: [a, b]\n",
    "title: one: two: [three\n",
]
LATIN1_TEXTS = [
    "Café com leite na pastelaria, às nove. Pagar a água até sexta.",
    "Résumé updated for the agency; naïve question about the café invoice.",
    "Reunião às três: orçamento, férias, avaliação.",
]
