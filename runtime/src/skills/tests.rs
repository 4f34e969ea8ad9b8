//! The skill catalog: entries, pages, lookups and what is refused.

use super::*;

fn skill() -> Skill {
    Skill::new(
        "pdf-processing",
        "---\nname: pdf-processing\ndescription: Fill forms\nmetadata:\n  version: 2\n---\nBody\n",
    )
    .unwrap()
    .file("references/FORMS.md", "# Forms\n")
    .unwrap()
    .file("scripts/fill.py", "print(1)\n")
    .unwrap()
}

#[test]
fn entries_carry_digests_sizes_and_the_frontmatter() {
    let skills = Skills::new().with(skill()).unwrap();
    let list = skills.list(None, 10).unwrap();
    let entry = &list["skills"][0];
    assert_eq!(entry["uri"], "skill://pdf-processing/SKILL.md");
    assert_eq!(entry["frontmatter"]["metadata"]["version"], 2);
    let resources = entry["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 3);
    assert_eq!(
        resources[1]["uri"],
        "skill://pdf-processing/references/FORMS.md"
    );
    assert_eq!(resources[1]["size"], 8);
    let digest = resources[1]["digest"].as_str().unwrap();
    assert!(
        digest.starts_with("sha256:") && digest.len() == 71,
        "{digest}"
    );
    assert!(list.get("nextCursor").is_none());
}

#[test]
fn pages_never_split_an_entry_and_cursors_are_checked() {
    let other = Skill::new("b-skill", "---\nname: b-skill\ndescription: B\n---\n").unwrap();
    let skills = Skills::new().with(skill()).unwrap().with(other).unwrap();
    let first = skills.list(None, 1).unwrap();
    assert_eq!(first["skills"].as_array().unwrap().len(), 1);
    let cursor = first["nextCursor"].clone();
    let second = skills.list(Some(&json!({ "cursor": cursor })), 1).unwrap();
    assert_eq!(second["skills"][0]["uri"], "skill://b-skill/SKILL.md");
    let bad = skills
        .list(Some(&json!({ "cursor": "nope" })), 1)
        .unwrap_err();
    assert_eq!(bad.code, -32602);
}

#[test]
fn get_and_directories_answer_invalid_params_for_what_is_not_served() {
    let skills = Skills::new().with(skill()).unwrap();
    let got = skills
        .get(Some(&json!({ "uri": "skill://pdf-processing/SKILL.md" })))
        .unwrap();
    assert_eq!(got["skill"]["frontmatter"]["name"], "pdf-processing");
    assert_eq!(
        skills
            .get(Some(&json!({ "uri": "skill://nope/SKILL.md" })))
            .unwrap_err()
            .code,
        -32602
    );
    assert_eq!(skills.get(None).unwrap_err().code, -32602);
    let root = skills
        .read_directory(Some(&json!({ "uri": "skill://pdf-processing" })), 10)
        .unwrap();
    let kids = root["resources"].as_array().unwrap();
    assert_eq!(kids.len(), 3);
    assert_eq!(kids[1]["mimeType"], DIRECTORY_MIME);
    let sub = skills
        .read_directory(Some(&json!({ "uri": kids[1]["uri"] })), 10)
        .unwrap();
    assert_eq!(sub["resources"][0]["name"], "FORMS.md");
    let file = json!({ "uri": "skill://pdf-processing/SKILL.md" });
    assert_eq!(
        skills.read_directory(Some(&file), 10).unwrap_err().code,
        -32602
    );
}

#[test]
fn bad_skills_are_refused() {
    let fm = |name: &str| format!("---\nname: {name}\ndescription: d\n---\n");
    assert!(
        Skill::new("other", fm("pdf")).is_err(),
        "name must match the path"
    );
    assert!(Skill::new("Bad--Name", fm("Bad--Name")).is_err());
    assert!(Skill::new("x", "no frontmatter").is_err());
    assert!(
        Skill::new("x", "---\nname: x\n---\n").is_err(),
        "description required"
    );
    assert!(Skill::new("x", "---\nname: [x\n---\n").is_err(), "bad YAML");
    let ok = Skill::new("x", fm("x")).unwrap();
    assert!(ok.clone().file("../escape", "").is_err());
    assert!(ok.clone().file("SKILL.md", "").is_err());
    assert!(ok.file("a/b", "").unwrap().file("a", "").is_err());
}

#[test]
fn a_directory_of_skills_is_read() {
    let root = std::env::temp_dir().join(format!("tracksuit-skills-{}", std::process::id()));
    let dir = root.join("acme").join("greeter");
    std::fs::create_dir_all(dir.join("references")).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: greeter\ndescription: Greets\n---\nHi\n",
    )
    .unwrap();
    std::fs::write(dir.join("references").join("TONE.md"), "warm").unwrap();
    let skills = Skills::from_dir(&root).unwrap();
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(skills.uris(), ["skill://acme/greeter/SKILL.md"]);
    let resources = skills.resources();
    assert_eq!(resources.len(), 2);
    assert_eq!(resources[0].0.name, "greeter");
    assert_eq!(resources[0].0.mime_type.as_deref(), Some("text/markdown"));
}
