from chatapp.cli.app import main

main()
