// The public runtime's extension docs: an option a setup hook reads.
return await agent("Review the package", { advisor: true });
