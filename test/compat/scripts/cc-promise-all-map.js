// Claude Code style as models often write it: Promise.all over a map of agent calls.
const questions = args.questions;
const answers = await Promise.all(questions.map((q) => agent(`Answer: ${q}`)));
return answers;
