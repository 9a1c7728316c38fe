// A first attempt without a guide: fetching a page.
const response = await fetch('https://example.com/changelog');
return await agent(`Summarize:\n${await response.text()}`);
