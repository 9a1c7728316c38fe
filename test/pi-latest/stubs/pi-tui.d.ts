// Stand-in for @earendil-works/pi-tui 1.x, which our registry does not have
// (its newest there is 0.87.1): the lockfile's 0.87.1 declarations, the
// closest available. The dashboard's few pi-tui imports (Component,
// truncateToWidth) are checked against them, not against 1.x's.
export * from '../../../node_modules/@earendil-works/pi-tui/dist/index.js';
