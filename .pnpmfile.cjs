// pnpm's hooks for this workspace.
module.exports = {
  hooks: {
    /**
     * @parse/node-apn (the delivery bench's baseline) declares node "20 || 22 || 24" and runs on 26
     * (the bench runs it there): its range is read as ">=20", so that engineStrict, which checks
     * every dependency, refuses only a Node older than a package really needs.
     */
    readPackage(pkg) {
      if (pkg.name === '@parse/node-apn' && pkg.engines) pkg.engines = { ...pkg.engines, node: '>=20' };
      return pkg;
    },
  },
};
