/**
 * The script language of runs launched now. 2: `prompt`'s `{name}`
 * placeholders and the preflight's rules for clocks, floating calls and call
 * shapes (docs/runs.md, "Script language"). A snapshot without
 * `scriptLanguage` is language 1 (`{{name}}` templates, none of those
 * rules), which its stored script keeps on resume and retry, so it replays
 * its journal.
 */
export const SCRIPT_LANGUAGE = 2;
