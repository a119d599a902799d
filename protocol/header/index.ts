// Custom headers, one file each (see header-schema.ts).
export * from './header-schema';
