// Stand-in for the declarations of Pi 1.x's own dependencies that our
// registry does not have at 1.x (pi-schema, pi-codemode, pi-mcp,
// pi-telemetry) and of pi-ai's provider SDKs, which are not installed: an
// empty module, so every name Pi's declarations import from them is `any`
// (those files are library declarations: skipLibCheck hides the missing
// names). Nothing of this package imports these modules itself.
export {};
