// A first attempt without a guide: reading a file with Node's fs.
const fs = require('fs');
const text = fs.readFileSync('README.md', 'utf8');
return await agent(`Summarize:\n${text}`);
