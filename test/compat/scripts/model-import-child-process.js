import { execSync } from 'child_process';

const log = execSync('git log --oneline -5').toString();
return await agent(`Summarize these commits:\n${log}`);
