mkproj () 
{ 
    local kind=$1 name=$2 dir=$1/$2;
    mkdir -p $dir/src;
    local build="";
    if [ "$kind" = apps ]; then
        build='"build": { "executor": "nx:run-commands", "outputs": ["{workspaceRoot}/dist/apps/'$name'"], "options": { "command": "node scripts/build-app.mjs '$name'" } },';
    fi;
    cat > $dir/project.json <<EOF
{
  "name": "$name",
  "\$schema": "../../node_modules/nx/schemas/project-schema.json",
  "projectType": "$([ $kind = apps ] && echo application || echo library)",
  "sourceRoot": "$dir/src",
  "targets": {
    $build
    "typecheck": { "executor": "nx:run-commands", "options": { "command": "tsc -p $dir/tsconfig.json --noEmit" } },
    "lint": { "executor": "nx:run-commands", "options": { "command": "eslint $dir/src" } },
    "test": { "executor": "nx:run-commands", "outputs": ["{workspaceRoot}/.test-results/$name.json"], "options": { "command": "NODE_OPTIONS=--experimental-vm-modules jest -c $dir/jest.config.js --json --outputFile=.test-results/$name.json" } }
  }
}
EOF

    cat > $dir/tsconfig.json <<EOF
{ "extends": "../../tsconfig.base.json", "compilerOptions": { "noEmit": true }, "include": ["src/**/*.ts"] }
EOF

    echo "module.exports = require('../../jest.preset.js')(__dirname);" > $dir/jest.config.js
}
